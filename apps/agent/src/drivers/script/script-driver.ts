import { isWebhookCommand, type AgentKnocOf } from '@postern/protocol';
import type { Logger } from 'pino';
import { parseAddress } from '../addresses.js';
import { mapWithConcurrency } from '../concurrency.js';
import type { Driver, DriverEntry, EntryOutcome } from '../driver.js';
import { ConfigurationError, errorMessage, failed, succeeded } from '../outcomes.js';
import { redactSecrets, scriptInvocation, type ScriptAction, type ScriptVariable } from './script-environment.js';
import { killScripts, runScript, type ScriptEnd } from './script-process.js';
import { resolveScript, ScriptRefusedError } from './script-path.js';
import { callWebhook, webhookRefusal, WebhookTrust } from './script-webhook.js';

export interface ScriptDriverOptions {
  /** The agent's scripts.enabled: off, every entry fails and nothing runs. */
  enabled: boolean;
  /** The only directory programs run from (scripts.directory). */
  directory: string;
  /** A run still going after this long is stopped with its process group; a webhook call is given up. */
  timeoutSeconds: number;
  /** The agent's caFile: webhooks trust it besides the system's roots (null: the system's only). */
  caFile?: string | null;
  logger: Logger;
  /** How many scripts may run at once. */
  concurrency?: number;
}

/** An entry's error holds at most this much of the script's stderr. */
export const SCRIPT_ERROR_MAX_BYTES = 2048;
const DEFAULT_CONCURRENCY = 4;

/** What a script knoc runs and with which variables, or an error naming what is missing. */
function scriptFields(knoc: AgentKnocOf<'script'>): {
  command: string;
  name: string;
  variables: ScriptVariable[];
  webhookSecret: string;
} {
  const command = (knoc.backend.Command ?? '').trim();
  if (command === '') {
    throw new Error(
      `knoc ${knoc.aclId} has an unusable script backend config.Command: the script backend has no Command`,
    );
  }
  const variables = (knoc.acl.EnvVars ?? []).map((variable) => ({
    Name: variable.Name.trim(),
    Value: variable.Value ?? '',
    Sensitive: variable.Sensitive ?? false,
  }));
  const webhookSecret = knoc.backend.WebhookSecret ?? '';
  return { command, name: (knoc.acl.Name ?? '').trim(), variables, webhookSecret };
}

/** How one entry is carried out: a program run or a webhook call, either way with these values. */
type Invoke = (run: {
  args: string[];
  env: Record<string, string>;
}) => Promise<{ error: string | null; permanent?: boolean }>;

/**
 * Runs the backend's program from the agent's scripts directory once per entry:
 * `<program> add|remove <aclName> <ip>` with the spec's knoc_* variables and the knoc's own
 * variables; or, when the Command is a webhook URL, POSTs those values to it (script-webhook.ts).
 * A script has no way to say what it holds, so `list` is empty and `flush` does nothing: the agent
 * removes what it granted, entry by entry, from its own state.
 */
export class ScriptDriver implements Driver<'script'> {
  readonly type = 'script' as const;
  readonly #options: ScriptDriverOptions;
  readonly #running = new Set<number>();
  readonly #trust: WebhookTrust;

  constructor(options: ScriptDriverOptions) {
    this.#options = options;
    this.#trust = new WebhookTrust(options.caFile ?? null);
  }

  apply(knoc: AgentKnocOf<'script'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#runAll('add', knoc, entries);
  }

  remove(knoc: AgentKnocOf<'script'>, entries: readonly DriverEntry[]): Promise<EntryOutcome[]> {
    return this.#runAll('remove', knoc, entries);
  }

  /** A script cannot be asked what it holds. */
  list(): Promise<string[]> {
    return Promise.resolve([]);
  }

  readsBack(): boolean {
    return false;
  }

  flush(): Promise<void> {
    return Promise.resolve();
  }

  close(): Promise<void> {
    killScripts(this.#running);
    return Promise.resolve();
  }

  async #runAll(
    action: ScriptAction,
    knoc: AgentKnocOf<'script'>,
    entries: readonly DriverEntry[],
  ): Promise<EntryOutcome[]> {
    if (!this.#options.enabled) {
      throw new Error("scripts are disabled in this agent's configuration (scripts.enabled)");
    }
    const { command, name, variables, webhookSecret } = scriptFields(knoc);
    const invoke = isWebhookCommand(command)
      ? this.#webhook(command, webhookSecret)
      : this.#program(await this.#resolve(command));
    // A webhook's secret must not come back in its answer's text either.
    const secrets =
      webhookSecret === '' ? variables : [...variables, { Name: '', Value: webhookSecret, Sensitive: true }];
    const aclName = name !== '' ? name : knoc.name;
    const outcomes = await mapWithConcurrency(
      entries,
      this.#options.concurrency ?? DEFAULT_CONCURRENCY,
      async (entry): Promise<EntryOutcome> => {
        const address = parseAddress(entry.ip);
        if (address === null) return failed(entry.ip, `${entry.ip} is not an IPv4 or IPv6 address`);
        try {
          const run = scriptInvocation({ action, aclName, userName: entry.userName, address, variables });
          const { error, permanent } = await invoke(run);
          return error === null
            ? succeeded(entry.ip)
            : failed(entry.ip, redactSecrets(error, secrets), { permanent: permanent === true });
        } catch (error) {
          return failed(entry.ip, errorMessage(error));
        }
      },
    );
    const failures = outcomes.filter((outcome) => !outcome.ok).length;
    // Names only: a variable's value, or the script's output, may be a secret.
    if (failures > 0) this.#options.logger.warn({ aclId: knoc.aclId, action, failed: failures }, 'script runs failed');
    return outcomes;
  }

  async #resolve(command: string): Promise<string> {
    try {
      return await resolveScript(command, this.#options.directory);
    } catch (error) {
      if (error instanceof ScriptRefusedError) throw error;
      throw new Error(`script ${command} cannot be used: ${errorMessage(error)}`, { cause: error });
    }
  }

  #program(program: string): Invoke {
    return async ({ args, env }) => {
      const end = await runScript({
        program,
        args,
        env,
        cwd: this.#options.directory,
        timeoutMs: this.#options.timeoutSeconds * 1000,
        maxStderrBytes: SCRIPT_ERROR_MAX_BYTES,
        running: this.#running,
      });
      return { error: this.#errorFor(end) };
    };
  }

  /**
   * A webhook call per entry with the values a script would get in its environment (PATH aside).
   * An unusable URL or a missing secret is the knoc's configuration: permanent until an admin fixes it.
   */
  #webhook(url: string, secret: string): Invoke {
    const refusal = webhookRefusal(url);
    if (refusal !== null) throw new ConfigurationError(refusal);
    if (secret === '') throw new ConfigurationError(`webhook ${new URL(url).origin} has no WebhookSecret to sign with`);
    return ({ env }) => {
      const { PATH: _path, ...values } = env;
      return callWebhook({
        url,
        secret,
        values,
        timeoutMs: this.#options.timeoutSeconds * 1000,
        ca: this.#trust.roots(),
      });
    };
  }

  /** The entry's error for how the run ended, or null when it succeeded. */
  #errorFor(end: ScriptEnd): string | null {
    const stderr = trimError(end.stderr);
    switch (end.kind) {
      case 'exited':
        if (end.code === 0) return null;
        return stderr !== '' ? stderr : `script exited with status ${end.code}`;
      case 'signalled':
        return stderr !== '' ? `${stderr} (killed by ${end.signal})` : `script was killed by ${end.signal}`;
      case 'timedOut':
        return `script did not finish within ${this.#options.timeoutSeconds} s and was stopped`;
    }
  }
}

/** Trimmed, and at most the last {@link SCRIPT_ERROR_MAX_BYTES} characters. */
function trimError(stderr: string): string {
  const text = stderr.trim();
  return text.length > SCRIPT_ERROR_MAX_BYTES ? `…${text.slice(-SCRIPT_ERROR_MAX_BYTES)}` : text;
}
