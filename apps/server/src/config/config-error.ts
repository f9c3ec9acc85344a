/**
 * A setting that cannot be used. The server prints `message` as one line, naming the setting, and
 * exits with code 2; it never shows a stack trace for this.
 */
export class ConfigError extends Error {
  readonly setting: string;

  constructor(setting: string, problem: string) {
    super(`${setting}: ${problem}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}

/** Exit code for a configuration or start-up problem the operator must fix. */
export const EXIT_CONFIG_ERROR = 2;
