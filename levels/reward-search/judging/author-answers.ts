/**
 * What the judge-authoring model may answer at each step (docs/guides/judging.md, "Authoring a code judge"), as
 * zod schemas: the JSON schema the server is asked to hold the answer to, and the parser that reads the answer as
 * untrusted input. A criteria tree in an answer is read by `parseCriteria` (criteria.ts), so a refusal names the
 * field (`criteria.children[1].threshold: …`); every text is bounded.
 */
import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { type CriteriaTree, CriteriaTree as CriteriaTreeSchema, parseCriteria } from "./criteria.ts";

/** The longest judge code an author may write, characters (a judge file holds up to 256 KiB). */
export const MAX_AUTHORED_CODE = 64 * 1024;
const MAX_FINDINGS = 4000;

const Findings = z.string().max(MAX_FINDINGS).describe("what was checked and what was found, briefly");
const Code = z
  .string()
  .min(1)
  .max(MAX_AUTHORED_CODE)
  .describe("JavaScript defining function judge(traj) that returns one { id, value, score, passed, note } per leaf");

/** One step's answer: the schema sent on the wire and the reading of the answer's JSON. */
export interface AnswerKind<T> {
  /** The schema's name on the wire. */
  name: string;
  wire: z.ZodType;
  read: (value: unknown) => T;
}

const issueText = (e: z.ZodError): string => {
  const i = e.issues[0]!;
  return `${i.path.join(".") || "(root)"}: ${i.message}`;
};

/** Reads the envelope with `shape` (criteria left as given), then the criteria tree with parseCriteria. */
const reader =
  <S extends z.ZodType>(shape: S, check?: (v: z.infer<S>) => string | null) =>
  (value: unknown): z.infer<S> => {
    const r = shape.safeParse(value);
    if (!r.success) throw new ModelOutputError(issueText(r.error));
    const problem = check?.(r.data);
    if (problem) throw new ModelOutputError(problem);
    return r.data;
  };

const withTree = <T extends { criteria?: unknown }>(v: T): Omit<T, "criteria"> & { criteria?: CriteriaTree } =>
  v.criteria === undefined ? (v as Omit<T, "criteria">) : { ...v, criteria: parseCriteria(v.criteria) };

export const DecomposeAnswer: AnswerKind<{ criteria: CriteriaTree }> = {
  name: "judge_decomposition",
  wire: z.strictObject({ criteria: CriteriaTreeSchema }),
  read: (value) => withTree(reader(z.strictObject({ criteria: z.unknown() }))(value)) as { criteria: CriteriaTree },
};

export interface DecompositionReviewAnswer {
  change: boolean;
  findings: string;
  criteria?: CriteriaTree;
}

export const DecompositionReview: AnswerKind<DecompositionReviewAnswer> = {
  name: "judge_decomposition_review",
  wire: z.strictObject({
    change: z.boolean().describe("true when the decomposition must change; false: no change, the review ends"),
    findings: Findings,
    criteria: CriteriaTreeSchema.optional().describe("the whole corrected decomposition; required when change is true"),
  }),
  read: (value) =>
    withTree(
      reader(z.strictObject({ change: z.boolean(), findings: Findings, criteria: z.unknown().optional() }), (v) =>
        v.change && v.criteria === undefined ? "criteria: missing; change is true, so give the whole corrected decomposition" : null,
      )(value),
    ) as DecompositionReviewAnswer,
};

export const ImplementAnswer: AnswerKind<{ code: string }> = {
  name: "judge_code",
  wire: z.strictObject({ code: Code }),
  read: reader(z.strictObject({ code: Code })),
};

export interface LoopholeReviewAnswer {
  loophole: boolean;
  findings: string;
  code?: string | undefined;
}

export const LoopholeReview: AnswerKind<LoopholeReviewAnswer> = {
  name: "judge_loophole_review",
  wire: z.strictObject({
    loophole: z.boolean().describe("true when a wrong behaviour could score high or a right one low, or the code does not measure a leaf as specified"),
    findings: Findings,
    code: Code.optional().describe("the whole corrected code; required when loophole is true"),
  }),
  read: reader(z.strictObject({ loophole: z.boolean(), findings: Findings, code: Code.optional() }), (v) =>
    v.loophole && v.code === undefined ? "code: missing; loophole is true, so give the whole corrected code" : null,
  ),
};
