/**
 * Typed configuration errors. Messages name the file, line and key so an operator can fix the
 * file, and never contain a value (a line may hold a token or a database password).
 */

/** A project or settings file cannot be read as a whole; startup (or the reload) stops. */
export class ConfigFileError extends Error {
  override readonly name: string = 'ConfigFileError';
  readonly file: string;
  readonly line: number | undefined;
  readonly key: string | undefined;

  constructor(
    file: string,
    line: number | undefined,
    key: string | undefined,
    problem: string,
    options?: ErrorOptions,
  ) {
    const where = line === undefined ? file : `${file}:${line}`;
    super(`${where}: ${key === undefined ? '' : `invalid value for ${key}: `}${problem}`, options);
    this.file = file;
    this.line = line;
    this.key = key;
  }
}

/** A value offered to `saveConsoleSettings` or `configFromValues` is refused; nothing is written. */
export class ConfigValidationError extends Error {
  override readonly name = 'ConfigValidationError';
  /** The env key of the offending field, as given. */
  readonly field: string;

  constructor(field: string, message: string) {
    super(message);
    this.field = field;
  }
}

/**
 * A credential (a `strict` field) set to a value that can never be used: the start stops, a reload
 * keeps the running configuration (docs/rules.md#cfg-credentials). Names where it was set, the key
 * and the rule it breaks, never the value.
 */
export class ConfigCredentialError extends ConfigFileError {
  override readonly name = 'ConfigCredentialError';

  constructor(where: string, key: string, problem: string) {
    super(where, undefined, key, `${problem} (a credential is used as given: correct it or remove it)`);
  }
}
