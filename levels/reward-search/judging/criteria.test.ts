import { describe, expect, it } from "vitest";
import { ModelOutputError } from "../../../src/errors.ts";
import { leavesOf, parseCriteria } from "./criteria.ts";

const leaf = (id: string, extra: object = {}) => ({ id, name: `leaf ${id}`, metric: "mean(vx)", threshold: ">= 0.5", partial: "linear", ...extra });
const tree = (children: unknown[], order = "sequential") => ({ order, children });

describe("parseCriteria", () => {
  it("reads nested groups and leaves from JSON text, defaulting mustKeep and keeping weights", () => {
    const t = parseCriteria(
      JSON.stringify(tree([{ id: "1", name: "g", order: "independent", children: [leaf("1.1", { weight: 2 }), leaf("1.2", { mustKeep: true })] }, leaf("2")])),
    );
    expect(leavesOf(t.children).map((l) => [l.id, l.weight, l.mustKeep])).toEqual([
      ["1.1", 2, false],
      ["1.2", undefined, true],
      ["2", undefined, false],
    ]);
  });

  it.each([
    ["not JSON", "{order:", /^criteria: not JSON/],
    ["a leaf's missing field", tree([leaf("1", { threshold: undefined })]), /^criteria\.children\[0\]\.threshold: .* \(missing\)$/],
    [
      "a nested leaf's unknown key",
      tree([{ id: "1", name: "g", order: "sequential", children: [leaf("1.1", { thresold: 1 })] }]),
      /^criteria\.children\[0\]\.children\[0\]: .*thresold/,
    ],
    [
      "a group's bad order",
      tree([{ id: "1", name: "g", order: "parallel", children: [leaf("1.1")] }]),
      /^criteria\.children\[0\]\.order: .*\(got "parallel"\)$/,
    ],
    ["a negative weight", tree([leaf("1", { weight: -1 })]), /^criteria\.children\[0\]\.weight: .*\(got -1\)$/],
    ["a node that is not an object", tree([3]), /^criteria\.children\[0\]: must be an object/],
    ["a malformed id", tree([leaf("1.a")]), /^criteria\.children\[0\]\.id: must be dotted positive numbers .*\(got "1\.a"\)$/],
    [
      "a child id outside its parent",
      tree([{ id: "1", name: "g", order: "sequential", children: [leaf("2.1")] }]),
      /^criteria\.children\[0\]\.children\[0\]\.id: "2\.1" is not a child id of 1/,
    ],
    ["a nested id at the top", tree([leaf("1.1")]), /^criteria\.children\[0\]\.id: "1\.1" is not a top-level id/],
    ["an id used twice", tree([leaf("1"), leaf("1")]), /^criteria\.children\[1\]\.id: "1" is used twice/],
    ["all weights 0", tree([leaf("1", { weight: 0 }), leaf("2", { weight: 0 })]), /^criteria\.children: every weight is 0/],
    ["an empty group", tree([{ id: "1", name: "g", order: "sequential", children: [] }]), /^criteria\.children\[0\]\.children: /],
  ])("refuses %s, naming the field", (_what, input, message) => {
    const e = (() => {
      try {
        parseCriteria(input);
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(ModelOutputError);
    expect((e as Error).message).toMatch(message);
  });

  it("bounds the tree: more than 64 leaves is refused", () => {
    const groups = Array.from({ length: 5 }, (_, g) => ({
      id: String(g + 1),
      name: "g",
      order: "independent",
      children: Array.from({ length: 14 }, (_, k) => leaf(`${g + 1}.${k + 1}`)),
    }));
    expect(() => parseCriteria(tree(groups))).toThrow(/70 leaves, more than 64/);
  });
});
