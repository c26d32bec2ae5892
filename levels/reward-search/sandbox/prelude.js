// @ts-check
/**
 * Evaluated inside each candidate's QuickJS context before the reward code (quickjs-reward.ts reads this file
 * and calls the function it evaluates to with the layout, as JSON, and the seed). It captures the intrinsics it
 * needs (so the reward code cannot change what the driver does), replaces Math.random with a seeded generator,
 * removes the clock and GC-dependent objects, adds a no-op console, makes the builtins whose work grows with
 * their input poll the CPU limit, and returns `describe` (a thrown value as JSON) and `makeDriver` (builds the
 * driver once the reward code has been evaluated). The batch layout is the one reward-sandbox.ts documents.
 * Plain JavaScript of the sandbox's dialect: no imports, and only ECMAScript builtins.
 */
(/**
  * @param {string} layoutJson `{ observation, actionNames, actionKind, info }` of the task (RewardLayout)
  * @param {number} seed the seed of Math.random (an integer ≥ 0)
  */
function hexaPrelude(layoutJson, seed) {
  "use strict";
  /** @type {{ observation: string[], actionNames: string[], actionKind: "discrete" | "continuous", info: string[] }} */
  const l = JSON.parse(layoutJson);
  const G = globalThis, F64 = Float64Array, stringify = JSON.stringify, keysOf = Object.keys, isArray = Array.isArray;
  const hasOwn = Function.prototype.call.bind(Object.prototype.hasOwnProperty), Str = String, P = Promise, Fn = Function;
  /** @param {unknown} v */
  const describeValue = (v) => { try { return v === null ? "null" : v instanceof P ? "a Promise (async functions and import() cannot be used)" : typeof v === "string" ? stringify(v.length > 40 ? v.slice(0, 40) + "..." : v) : typeof v === "object" ? (isArray(v) ? "an array" : "an object") : typeof v === "function" ? "a function" : Str(v); } catch (e) { return typeof v; } };

  // The batch's columns (column c of n values starts at 1 + c * n): obs fields, action columns, nextObs fields,
  // info fields. Per-env runners fill one object per argument, reused from env to env within a call.
  const O = l.observation.length;
  const continuous = l.actionKind === "continuous";
  const A = continuous ? l.actionNames.length : 1;
  const columns = 2 * O + A + l.info.length;
  /** @param {number} c */
  const colAt = (c) => "c" + c;
  const colNames = [];
  for (let c = 0; c < columns; c++) colNames.push(colAt(c) + " = 1 + " + c + " * n");
  /** @param {string[]} names */
  const objInit = (names) => "{ " + names.map((name) => stringify(name) + ": 0").join(", ") + " }";
  // `o.theta =` compiles to QuickJS's fast field store; `o["theta"] =` is ~3x slower.
  /** @param {string} name */
  const prop = (name) => (/^[A-Za-z_$][\w$]*$/.test(name) ? "." + name : "[" + stringify(name) + "]");
  /** @param {string} obj @param {string[]} names @param {number} col0 */
  const fillObj = (obj, names, col0) => names.map((name, j) => obj + prop(name) + " = a[" + colAt(col0 + j) + " + i];").join(" ");
  const head = "const " + colNames.join(", ") + ";\n      const o = " + objInit(l.observation) + ", no = " + objInit(l.observation) + ", inf = " + objInit(l.info) + ";\n      " + (continuous ? "const ac = " + objInit(l.actionNames) + ";" : "");
  const actArg = continuous ? "ac" : "a[" + colAt(O) + " + i]";
  const fill = [fillObj("o", l.observation, 0), continuous ? fillObj("ac", l.actionNames, O) : "", fillObj("no", l.observation, O + A), fillObj("inf", l.info, 2 * O + A)].join(" ");

  // Math.random: sfc32 seeded through splitmix32, deterministic for the seed.
  let sm = (seed % 4294967296) | 0;
  const split = () => { sm = (sm + 0x9e3779b9) | 0; let z = sm; z = Math.imul(z ^ (z >>> 16), 0x85ebca6b); z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35); return (z ^ (z >>> 16)) >>> 0; };
  sm = (split() ^ Math.floor(seed / 4294967296)) | 0;
  let ra = split(), rb = split(), rc = split(), rd = split();
  const random = function random() {
    const t = (((ra + rb) | 0) + rd) | 0; rd = (rd + 1) | 0; ra = rb ^ (rb >>> 9); rb = (rc + (rc << 3)) | 0; rc = (rc << 21) | (rc >>> 11); rc = (rc + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let k = 0; k < 8; k++) random();
  Object.defineProperty(Math, "random", { value: random, writable: true, configurable: true, enumerable: false });

  // No clock: Date.now() is 0; new Date() explains itself. No GC-dependent objects.
  const NoDate = function Date() { throw new TypeError("Date is not available in the reward sandbox: a reward may depend only on obs, action, nextObs and info"); };
  NoDate.now = () => 0;
  Object.defineProperty(G, "Date", { value: NoDate, writable: true, configurable: true, enumerable: false });
  const g = /** @type {Record<string, unknown>} */ (/** @type {unknown} */ (G));
  delete g.WeakRef; delete g.FinalizationRegistry;
  const noop = function () {};
  Object.defineProperty(G, "console", { value: { log: noop, info: noop, warn: noop, error: noop, debug: noop }, writable: true, configurable: true, enumerable: false });

  // QuickJS asks the interrupt handler (the CPU limit) only every ~10,000 jumps and calls, and a builtin such as
  // fill or indexOf on a million elements runs natively in between; so the builtins whose work grows with their
  // input first spin an empty loop of one jump per 64 elements, which keeps the checks proportional to the work.
  const apply = Reflect.apply, defineProp = Object.defineProperty, min = Math.min;
  /** @param {number} n */
  const spin = (n) => { for (let k = min(n, 1e9) / 64; k >= 1; k--) {} };
  /** @param {any} x */
  const len = (x) => { try { return x != null && typeof x.length === "number" ? x.length : 0; } catch (e) { return 0; } };
  /** @typedef {(self: any, args: any[]) => number} Size */
  /** @param {any} obj @param {string} name @param {Size} size */
  const wrapBefore = (obj, name, size) => {
    const f = obj[name];
    if (typeof f !== "function") return;
    const w = { [name](/** @type {any[]} */ ...args) { spin(size(this, args)); return apply(f, this, args); } }[name];
    defineProp(obj, name, { value: w, writable: true, configurable: true, enumerable: false });
  };
  /** @param {any} obj @param {string} name */
  const wrapAfter = (obj, name) => {
    const f = obj[name];
    if (typeof f !== "function") return;
    const w = { [name](/** @type {any[]} */ ...args) { const r = apply(f, this, args); spin(len(r)); return r; } }[name];
    defineProp(obj, name, { value: w, writable: true, configurable: true, enumerable: false });
  };
  /** @type {Size} */
  const ofThis = (t) => len(t);
  /** @type {Size} */
  const ofThisAndArgs = (t, a) => { let n = len(t); for (let i = 0; i < a.length; i++) n += len(a[i]); return n; };
  /** @type {Size} */
  const ofArg0 = (_t, a) => len(a[0]);
  const TypedProto = Object.getPrototypeOf(Int8Array.prototype), Typed = Object.getPrototypeOf(Int8Array);
  const bufOf = Function.prototype.call.bind(/** @type {() => ArrayBuffer} */ (/** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(TypedProto, "buffer")).get));
  for (const m of ["fill", "join", "toString", "toLocaleString", "slice", "splice", "indexOf", "lastIndexOf", "includes", "reverse", "copyWithin", "flat", "toReversed", "toSpliced", "with", "shift", "unshift"]) wrapBefore(Array.prototype, m, ofThis);
  wrapBefore(Array.prototype, "concat", ofThisAndArgs);
  for (const m of ["sort", "toSorted"]) wrapBefore(Array.prototype, m, (t) => 20 * len(t));
  for (const m of ["fill", "join", "toString", "toLocaleString", "slice", "indexOf", "lastIndexOf", "includes", "reverse", "copyWithin", "toReversed", "with"]) wrapBefore(TypedProto, m, ofThis);
  for (const m of ["sort", "toSorted"]) wrapBefore(TypedProto, m, (t) => 20 * len(t));
  wrapBefore(TypedProto, "set", ofArg0);
  wrapBefore(Array, "from", ofArg0);
  wrapBefore(Typed, "from", ofArg0);
  wrapBefore(String.prototype, "repeat", (t, a) => Str(t).length * min(+a[0] || 0, 1e9));
  for (const m of ["padStart", "padEnd"]) wrapBefore(String.prototype, m, (_t, a) => +a[0] || 0);
  for (const m of ["indexOf", "lastIndexOf", "includes", "split", "replace", "replaceAll", "match", "matchAll", "search", "toUpperCase", "toLowerCase", "normalize", "trim", "trimStart", "trimEnd", "slice", "substring", "substr", "startsWith", "endsWith", "localeCompare"]) wrapBefore(String.prototype, m, (t) => len(t));
  wrapBefore(String.prototype, "concat", ofThisAndArgs);
  wrapBefore(JSON, "parse", ofArg0);
  wrapAfter(JSON, "stringify");
  for (const m of ["keys", "values", "entries", "getOwnPropertyNames"]) wrapAfter(Object, m);
  wrapBefore(Function.prototype, "apply", (_t, a) => len(a[1]));

  /** @param {any} e */
  function describe(e) {
    let name = "Error", message = "", stack = "";
    try {
      if (e !== null && (typeof e === "object" || typeof e === "function")) {
        try { name = Str(e.name); } catch (x) {}
        try { message = Str(e.message); } catch (x) { message = "(unreadable message)"; }
        try { stack = typeof e.stack === "string" ? e.stack.slice(0, 2000) : ""; } catch (x) {}
        if (typeof e.lineNumber === "number" && stack.indexOf("reward.js:") < 0 && e.fileName === "reward.js") stack = "    at reward.js:" + e.lineNumber + "\n" + stack;
      } else { name = "thrown value"; message = describeValue(e); }
    } catch (x) {}
    return stringify({ name: name.slice(0, 100), message: message.slice(0, 500), stack });
  }

  /** @param {[unknown, unknown]} found `[rewardBatch, reward]` as the reward code defined them (or undefined) */
  function makeDriver(found) {
    const batchFn = found[0], envFn = found[1];
    if (batchFn !== undefined && typeof batchFn !== "function") return "rewardBatch is " + describeValue(batchFn) + ", not a function";
    if (batchFn === undefined && envFn === undefined) return "neither function reward nor function rewardBatch is defined";
    if (batchFn === undefined && typeof envFn !== "function") return "reward is " + describeValue(envFn) + ", not a function";
    /** @type {any} the component names, fixed by the first call that returns (null before it) */
    let names = null;
    let K = 0;
    /** @param {string | null} m */
    const fault = (m) => stringify({ kind: "shape", message: m });
    /** @param {object} c */
    const setNames = (c) => { names = keysOf(c); K = names.length; };
    /** @param {object} c @param {string} where */
    const sameNames = (c, where) => {
      const ks = keysOf(c);
      if (ks.length === K) { let ok = true; for (let k = 0; k < K; k++) if (!hasOwn(c, names[k])) { ok = false; break; } if (ok) return null; }
      return "components " + where + " are [" + ks.join(", ") + "] but the first call returned [" + names.join(", ") + "]";
    };
    /** The shape fault of env i's result r (k: index of the component that was not a number, or -1). @param {any} r @param {number} k @param {number} i */
    const bad = (r, k, i) => {
      if (r === null || typeof r !== "object" || isArray(r) || r instanceof P) return fault("got " + describeValue(r) + " for env " + i);
      const t = r.total;
      if (typeof t !== "number") return fault("total is " + describeValue(t) + " for env " + i + ", not a number");
      const c = r.components;
      if (c === null || typeof c !== "object" || isArray(c)) return fault("components is " + describeValue(c) + " for env " + i + ", not an object of named numbers");
      if (k < 0) return fault("the result for env " + i + " could not be read");
      const v = c[names[k]];
      return fault(v === undefined && !(names[k] in c) ? sameNames(c, "for env " + i) : "component " + stringify(names[k]) + " is " + describeValue(v) + " for env " + i + ", not a number");
    };
    // The first call runs env 0 to learn the component names, then hands over to a runner generated for those
    // names and the layout (property reads and writes with constant keys, no inner loop), used for every later env.
    /** @type {((buf: ArrayBuffer, r0: unknown) => unknown) | null} */
    let fast = null;
    const makeFast = () => {
      let extract = "";
      for (let k = 0; k < K; k++) extract += " v = c[" + stringify(names[k]) + "]; if (typeof v !== 'number') return bad(r, " + k + ", i); out[" + (k + 1) + " * n + i] = v;";
      const body = `"use strict";
    return function runFast(buf, r0) {
      const a = new F64(buf), n = a[0] | 0;
      ${head}
      const out = new F64(n * ${1 + K});
      for (let i = 0; i < n; i++) {
        let r;
        if (i === 0 && r0 !== undefined) r = r0;
        else {
          ${fill}
          r = envFn(o, ${actArg}, no, inf);
        }
        const t = r === null || typeof r !== "object" ? undefined : r.total;
        if (typeof t !== "number") return bad(r, -1, i);
        const c = r.components;
        if (c === null || typeof c !== "object") return bad(r, -1, i);
        if (i === 0) { const m = sameNames(c, "for env 0"); if (m !== null) return fault(m); }
        out[i] = t;
        let v;${extract}
      }
      return bufOf(out);
    };`;
      return Fn("envFn", "F64", "fault", "bad", "sameNames", "bufOf", body)(envFn, F64, fault, bad, sameNames, bufOf);
    };
    /** Env 0 of the first call, on its own argument objects. @param {ArrayBuffer} buf */
    const first = Fn("envFn", "F64", `"use strict";
    return function runFirst(buf) {
      const a = new F64(buf), n = a[0] | 0;
      ${head}
      const i = 0;
      ${fill}
      return envFn(o, ${actArg}, no, inf);
    };`)(envFn, F64);
    /** @param {ArrayBuffer} buf */
    function runFirst(buf) {
      const r = first(buf);
      const c = r === null || typeof r !== "object" || typeof r.total !== "number" ? null : r.components;
      if (c === null || typeof c !== "object" || isArray(c)) return bad(r, -1, 0);
      setNames(c);
      const f = makeFast();
      fast = f;
      return f(buf, r);
    }
    /** @param {ArrayBuffer} buf */
    const runPerEnv = (buf) => (fast !== null ? fast(buf, undefined) : runFirst(buf));
    /** The named columns from column col0 on, as Float64Array views of buf. @param {ArrayBuffer} buf @param {number} n @param {string[]} fields @param {number} col0 */
    const columnsOf = (buf, n, fields, col0) => {
      /** @type {Record<string, Float64Array>} */
      const x = {};
      for (let j = 0; j < fields.length; j++) x[fields[j]] = new F64(buf, 8 * (1 + (col0 + j) * n), n);
      return x;
    };
    /** @param {ArrayBuffer} buf */
    function runBatched(buf) {
      const n = new F64(buf, 0, 1)[0] | 0;
      const action = continuous ? columnsOf(buf, n, l.actionNames, O) : new F64(buf, 8 * (1 + O * n), n);
      const batch = { n, obs: columnsOf(buf, n, l.observation, 0), action, nextObs: columnsOf(buf, n, l.observation, O + A), info: columnsOf(buf, n, l.info, 2 * O + A) };
      const r = /** @type {Function} */ (batchFn)(batch);
      if (r === null || typeof r !== "object" || isArray(r) || r instanceof P) return fault("got " + describeValue(r));
      const t = r.total, c = r.components;
      /** @param {any} x */
      const badArr = (x) => x === null || typeof x !== "object" || typeof x.length !== "number" ? describeValue(x) + ", not an array" : x.length !== n ? "an array of length " + x.length + ", not n = " + n : null;
      let m = badArr(t);
      if (m !== null) return fault("total is " + m);
      if (c === null || typeof c !== "object" || isArray(c)) return fault("components is " + describeValue(c) + ", not an object of named arrays");
      if (names === null) setNames(c);
      else { m = sameNames(c, "in this call"); if (m !== null) return fault(m); }
      const out = new F64(n * (1 + K));
      for (let i = 0; i < n; i++) { const v = t[i]; if (typeof v !== "number") return fault("total[" + i + "] is " + describeValue(v) + ", not a number"); out[i] = v; }
      for (let k = 0; k < K; k++) {
        const x = c[names[k]];
        m = badArr(x);
        if (m !== null) return fault("component " + stringify(names[k]) + " is " + m);
        for (let i = 0; i < n; i++) { const v = x[i]; if (typeof v !== "number") return fault("component " + stringify(names[k]) + "[" + i + "] is " + describeValue(v) + ", not a number"); out[(k + 1) * n + i] = v; }
      }
      return bufOf(out);
    }
    return { form: batchFn !== undefined ? "batched" : "perEnv", run: batchFn !== undefined ? runBatched : runPerEnv, names: () => stringify(names) };
  }
  return { describe, makeDriver };
})
