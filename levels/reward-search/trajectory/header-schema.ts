import { z } from "zod";
import type { TrajectoryHeader } from "./record.ts";

/**
 * What a trajectory file's header may hold (docs/spec/trajectory.md; a file from elsewhere is parsed as
 * docs/security.md asks): sizes and counts bounded, names short and plain (they reach judges' prompts), and
 * every index inside the tables it points into.
 */

/** Bodies, joints, qpos / qvel entries and observation or action values at most: far above the shipped models (Ant: 14 bodies, nq 15). */
const MAX_ENTRIES = 1000;
const count = (min: number) => z.number().int().min(min).max(MAX_ENTRIES);
const finite = z.number().finite();
/** MuJoCo names as the shipped models spell them; empty for an unnamed element. */
const name = z.string().regex(/^[\w.:-]{0,64}$/, "a name of at most 64 letters, digits, _ . : or -");
const vec3 = z.tuple([finite, finite, finite]);

const BodyRow = z.strictObject({ index: count(0), name, parent: count(0) });

const JointRow = z.strictObject({
  index: count(0),
  name,
  type: z.enum(["free", "ball", "slide", "hinge"]),
  body: count(0),
  qposAdr: count(0),
  dofAdr: count(0),
  axis: vec3,
  range: z.tuple([finite, finite]).nullable(),
});

const HeaderShape = z.strictObject({
  schemaVersion: z.literal(1),
  task: z.string().regex(/^[a-z0-9_]{1,64}$/, "a task id (lower-case letters, digits and _)"),
  model: z.string().regex(/^[\w-]{1,64}\.xml$/, "a model file name in the shipped assets (no folder)"),
  dt: finite.positive().max(10),
  nq: count(1),
  nv: count(1),
  nbody: count(1),
  obsDim: count(1),
  actionDim: count(1),
  bodies: z.array(BodyRow).max(MAX_ENTRIES),
  joints: z.array(JointRow).max(MAX_ENTRIES),
  forward: vec3.refine(([x, y, z]) => Math.abs(Math.hypot(x, y, z) - 1) < 1e-9, "a unit vector"),
  terms: z
    .array(z.string().regex(/^\w{1,64}$/, "a term name (letters, digits and _)"))
    .min(1)
    .max(MAX_ENTRIES),
});

/** Where a header's tables disagree with its sizes: the field and why, or null. */
const tableProblem = (h: z.infer<typeof HeaderShape>): { path: string; message: string } | null => {
  if (h.bodies.length !== h.nbody) return { path: "bodies", message: `${h.bodies.length} bodies but nbody is ${h.nbody}` };
  for (const [i, b] of h.bodies.entries()) {
    if (b.index !== i) return { path: `bodies.${i}.index`, message: `is ${b.index}, not its position ${i}` };
    if (i > 0 && b.parent >= i) return { path: `bodies.${i}.parent`, message: `${b.parent} is not an earlier body` };
  }
  const width = { free: [7, 6], ball: [4, 3], slide: [1, 1], hinge: [1, 1] } as const;
  for (const [i, j] of h.joints.entries()) {
    const [nq, nv] = width[j.type];
    if (j.index !== i) return { path: `joints.${i}.index`, message: `is ${j.index}, not its position ${i}` };
    if (j.body >= h.nbody) return { path: `joints.${i}.body`, message: `${j.body} is not a body (nbody ${h.nbody})` };
    if (j.qposAdr + nq > h.nq) return { path: `joints.${i}.qposAdr`, message: `${j.qposAdr} + ${nq} runs past nq ${h.nq}` };
    if (j.dofAdr + nv > h.nv) return { path: `joints.${i}.dofAdr`, message: `${j.dofAdr} + ${nv} runs past nv ${h.nv}` };
  }
  if (new Set(h.terms).size !== h.terms.length) return { path: "terms", message: "a term is named twice" };
  return null;
};

export const TrajectoryHeaderSchema: z.ZodType<TrajectoryHeader> = HeaderShape.superRefine((h, ctx) => {
  const p = tableProblem(h);
  if (p) ctx.addIssue({ code: "custom", path: p.path.split(".").map((k) => (/^\d+$/.test(k) ? Number(k) : k)), message: p.message });
});
