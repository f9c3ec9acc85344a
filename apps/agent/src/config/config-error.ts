/**
 * A setting that cannot be used. `main` prints `message` as one line, naming the setting the way the
 * operator gave it (environment variable, flag, or config file and key), and exits with
 * {@link EXIT_CONFIG_ERROR}; it never shows a stack trace for this.
 */
export class ConfigError extends Error {
  /** How the operator knows the setting: `POSTERN_AGENT_SERVER_URL`, `--log-level`, `/etc/…/config.json: serverUrl`. */
  readonly setting: string;

  constructor(setting: string, problem: string) {
    super(`${setting}: ${problem}`);
    this.name = 'ConfigError';
    this.setting = setting;
  }
}

/** Exit code for a configuration or usage problem the operator must fix (the server uses the same). */
export const EXIT_CONFIG_ERROR = 2;
