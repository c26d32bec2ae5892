/** Errors sorted by who must act (style.md §11). */
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
