import { box2d } from "./box2d-wasm.ts";

/**
 * A contact listener that calls JavaScript only when a contact begins or ends (docs/spec/interphyre.md §1.3c).
 *
 * The bindings' JSContactListener calls into JavaScript for all four of Box2D's listener methods, and Box2D
 * calls PreSolve and PostSolve for every touching contact in every step: about a tenth of the engine's time,
 * for two methods the world leaves empty. Here each listener's virtual table is a copy of JSContactListener's
 * whose PreSolve and PostSolve slots hold those of Box2D's default listener (b2ContactManager's
 * `b2_defaultListener`, whose methods do nothing), so Box2D still calls every method in the same order, the
 * two per-contact ones without leaving the wasm module. BeginContact and EndContact, and so the contact log,
 * are untouched.
 *
 * The layout (Itanium C++ ABI, as emscripten compiles box2d-wasm 7.0.0): an object's first word points at its
 * virtual table, whose slots are two destructors, BeginContact, EndContact, PreSolve, PostSolve. It is found
 * and checked once per process; where it does not hold, listeners keep the bindings' own table.
 */

const SLOTS = 6;
const PRE_SOLVE = 4;
const POST_SOLVE = 5;
/** Words before a virtual table's address point: the offset to top and the type info. */
const PREFIX = 2;
/** Words searched for the listener pointer: b2World holds its 100 KiB stack allocator inline, before its contact manager. */
const WORLD_WORDS = 32768;

// Read through `box2d` each time: the heap's views are replaced when the wasm memory grows.
const word = (address: number): number => box2d.HEAPU32[address >>> 2]!;
const setWord = (address: number, value: number): void => void (box2d.HEAPU32[address >>> 2] = value);

/** Where a fresh world keeps its listener pointer, found as the one word SetContactListener changes. */
const defaultListener = (): number | undefined => {
  const gravity = new box2d.b2Vec2(0, 0);
  const world = new box2d.b2World(gravity);
  const probe = new box2d.JSContactListener();
  const start = box2d.getPointer(world) >>> 2;
  const before: Uint32Array = box2d.HEAPU32.slice(start, start + WORLD_WORDS);
  world.SetContactListener(probe);
  const after: Uint32Array = box2d.HEAPU32.slice(start, start + WORLD_WORDS);
  const changed: { from: number; to: number }[] = [];
  for (let i = 0; i < before.length; i++) if (before[i] !== after[i]) changed.push({ from: before[i]!, to: after[i]! });
  const probePointer = box2d.getPointer(probe);
  for (const made of [world, probe, gravity]) box2d.destroy(made);
  return changed.length === 1 && changed[0]!.to === probePointer ? changed[0]!.from : undefined;
};

/** The patched virtual table's address point on the wasm heap, allocated once per process; undefined where the layout differs. */
const patchedTable = (): number | undefined => {
  const quietListener = defaultListener();
  if (quietListener === undefined) return undefined;
  const probe = new box2d.JSContactListener();
  const js = word(box2d.getPointer(probe));
  box2d.destroy(probe);
  const quiet = word(quietListener);
  const slot = (table: number, i: number) => word(table + 4 * i);
  // Both tables must share their first destructor and differ in every listener method.
  if (slot(js, 0) !== slot(quiet, 0)) return undefined;
  for (let i = 2; i < SLOTS; i++) if (slot(js, i) === slot(quiet, i)) return undefined;
  const block = box2d._malloc(4 * (PREFIX + SLOTS));
  const table = block + 4 * PREFIX;
  for (let i = -PREFIX; i < SLOTS; i++) setWord(table + 4 * i, slot(js, i));
  setWord(table + 4 * PRE_SOLVE, slot(quiet, PRE_SOLVE));
  setWord(table + 4 * POST_SOLVE, slot(quiet, POST_SOLVE));
  return table;
};

const table = patchedTable();

/** Whether listeners skip JavaScript for PreSolve and PostSolve in this process (the layout was as expected). */
export const quietSolveCallbacks = table !== undefined;

type ContactHandler = (contact: number) => void;

/** A listener calling `begin` and `end` with the contact's address; free it with `box2d.destroy`. */
export const contactListener = (begin: ContactHandler, end: ContactHandler): Box2D.JSContactListener => {
  const listener = new box2d.JSContactListener();
  listener.BeginContact = begin as (contact: Box2D.b2Contact | number) => void;
  listener.EndContact = end as (contact: Box2D.b2Contact | number) => void;
  // Called only where the table could not be patched; the bindings require all four either way.
  listener.PreSolve = () => {};
  listener.PostSolve = () => {};
  if (table !== undefined) setWord(box2d.getPointer(listener), table);
  return listener;
};
