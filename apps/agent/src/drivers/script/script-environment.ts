import type { ParsedAddress } from '../addresses.js';
import { ScriptRefusedError } from './script-path.js';

/** The PATH scripts get: the system directories, nothing inherited from the agent's environment. */
export const SCRIPT_PATH = '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin';

export type ScriptAction = 'add' | 'remove';

/** A script variable with its value; a sensitive value arrives decrypted and is never logged. */
export interface ScriptVariable {
  Name: string;
  Value: string;
  Sensitive: boolean;
}

/** What one script run is about. */
export interface ScriptRun {
  action: ScriptAction;
  aclName: string;
  userName: string;
  address: ParsedAddress;
  variables: readonly ScriptVariable[];
}

/**
 * Variables a knoc may not set: ours (PATH, knoc_*), and the ones that make a dynamic loader, a shell
 * or an interpreter load other code. The scripts directory is the host administrator's; a knoc's
 * variables come from whoever edits knocs in Postern, and must not turn "run this script" into "run
 * anything". Compared case-sensitively, as the environment is.
 */
const FORBIDDEN_NAMES = new Set([
  'PATH',
  'IFS',
  'ENV',
  'BASH_ENV',
  'SHELLOPTS',
  'BASHOPTS',
  'PS4',
  'CDPATH',
  'GLOBIGNORE',
  'GCONV_PATH',
  'GETCONF_DIR',
  'HOSTALIASES',
  'LOCALDOMAIN',
  'RES_OPTIONS',
  'LOCPATH',
  'NLSPATH',
  'NODE_OPTIONS',
  'NODE_PATH',
  'PERL5LIB',
  'PERL5OPT',
  'PERLLIB',
  'PERL5DB',
  'PYTHONPATH',
  'PYTHONHOME',
  'PYTHONSTARTUP',
  'PYTHONINSPECT',
  'RUBYLIB',
  'RUBYOPT',
  'JAVA_TOOL_OPTIONS',
  '_JAVA_OPTIONS',
  'JDK_JAVA_OPTIONS',
]);
const FORBIDDEN_PREFIXES = ['LD_', 'DYLD_', 'BASH_FUNC_', 'MALLOC_', 'GLIBC_', 'knoc_'];
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Why a knoc variable name may not be passed, or null when it may. */
export function forbiddenVariableReason(name: string): string | null {
  if (!VARIABLE_NAME.test(name)) return `variable name ${JSON.stringify(name)} is not a valid environment name`;
  if (FORBIDDEN_NAMES.has(name) || FORBIDDEN_PREFIXES.some((prefix) => name.startsWith(prefix))) {
    return `variable ${name} may not be set by a knoc (it is reserved or changes how programs load)`;
  }
  return null;
}

/**
 * The argv after the program (`[action, aclName, ip]`) and the whole environment of one run: PATH,
 * the spec's knoc_* variables, then the knoc's own variables. Throws {@link ScriptRefusedError} for a
 * variable the knoc may not set.
 */
export function scriptInvocation(run: ScriptRun): { args: string[]; env: Record<string, string> } {
  const env: Record<string, string> = {
    PATH: SCRIPT_PATH,
    knoc_action: run.action,
    knoc_aclname: run.aclName,
    knoc_username: run.userName,
    knoc_cidr: run.address.cidr,
    knoc_ipaddr: run.address.address,
  };
  for (const variable of run.variables) {
    if (variable.Name === '') continue;
    const reason = forbiddenVariableReason(variable.Name);
    if (reason !== null) throw new ScriptRefusedError(reason);
    env[variable.Name] = variable.Value;
  }
  return { args: [run.action, run.aclName, run.address.canonical], env };
}

/** Replaces every sensitive value in `text` (a script's stderr) so an error never repeats a secret. */
export function redactSecrets(text: string, variables: readonly ScriptVariable[]): string {
  const secrets = variables
    .filter((variable) => variable.Sensitive && variable.Value !== '')
    .map((variable) => variable.Value)
    .sort((a, b) => b.length - a.length);
  return secrets.reduce((redacted, secret) => redacted.split(secret).join('[redacted]'), text);
}
