import { InvariantError } from "../../../src/errors.ts";
import type { TrainerError } from "./client-types.ts";
import type { HelloMessage } from "./protocol.ts";

/**
 * The life of a trainer process as the host sees it:
 * `starting` (spawned, no hello yet) → `ready` (jobs may be sent) → `closing` (shutdown sent) → `closed`;
 * any live state → `failed` (the TrainerError that ended it: every job in flight fails with it).
 */
export type TrainerState =
  | { name: "starting" }
  | { name: "ready"; hello: HelloMessage }
  | { name: "closing"; hello: HelloMessage }
  | { name: "failed"; error: TrainerError; hello: HelloMessage | null }
  | { name: "closed"; error: TrainerError };

type StateName = TrainerState["name"];

/** Every transition the client makes; `failed` and `closed` are final. */
const NEXT: Record<StateName, readonly StateName[]> = {
  starting: ["ready", "failed"],
  ready: ["closing", "failed"],
  closing: ["closed", "failed"],
  failed: [],
  closed: [],
};

/** The one place a trainer client's state changes. */
export class TrainerStateMachine {
  #state: TrainerState = { name: "starting" };

  get state(): TrainerState {
    return this.#state;
  }

  /** The error that ended the trainer (a failure, or `closed` after a shutdown); null while it is usable. */
  get failure(): TrainerError | null {
    return "error" in this.#state ? this.#state.error : null;
  }

  get hello(): HelloMessage | null {
    return "hello" in this.#state ? this.#state.hello : null;
  }

  to(next: TrainerState): void {
    if (!NEXT[this.#state.name].includes(next.name)) throw new InvariantError(`trainer client: no transition from ${this.#state.name} to ${next.name}`);
    this.#state = next;
  }
}
