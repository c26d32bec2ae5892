/** Errors sorted by who must act (docs/spec/style.md §11). */
export class HexaError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The user must fix an input: a flag, a config field, a scene file. */
export class ConfigError extends HexaError {}

/** A model produced unusable output; retried or shown back to it. */
export class ModelOutputError extends HexaError {}

/** A hexa bug: should never happen. */
export class InvariantError extends HexaError {}

/** The run stopped cleanly before its end (a spend cap) and resumes from there: exit status 3, not a failure. */
export class RunStopped extends HexaError {}
