import { Command } from 'commander';
import { POSTERN_VERSION } from '@postern/protocol';
import { loadConfig } from './config/config.js';
import { describeConfig } from './config/describe.js';
import { SETTINGS, SETTING_KEYS, type SettingKey } from './config/settings.js';
import { CONFIG_FILE_ENV, DEFAULT_CONFIG_FILE, type ConfigFlags } from './config/sources.js';
import { runAgent } from './run.js';

// Settings without a default that must (or may) be given, described in place of a default.
const WITHOUT_DEFAULT: Partial<Record<SettingKey, string>> = {
  serverUrl: '(required)',
  token: '(this or tokenFile)',
  tokenFile: '(this or token)',
  keyFile: '(agent-key.pem beside stateFile)',
};

/** The settings table shown by `--help` on the program and on each command. */
function settingsHelp(): string {
  const rows = SETTING_KEYS.map((key) => {
    const definition: (typeof SETTINGS)[SettingKey] = SETTINGS[key];
    const fallback = 'default' in definition ? definition.default || '(empty)' : '(unset)';
    return { key, env: definition.env, default: WITHOUT_DEFAULT[key] ?? fallback, help: definition.help };
  });
  const keyWidth = Math.max(...rows.map((row) => row.key.length)) + 2;
  const envWidth = Math.max(...rows.map((row) => row.env.length)) + 2;
  return [
    '',
    'Settings: config file key, environment variable, default. Flags override the environment,',
    'which overrides the config file. Booleans take true/false, yes/no or 1/0.',
    `The config file (JSON) is --config, else $${CONFIG_FILE_ENV}, else ${DEFAULT_CONFIG_FILE} if it exists.`,
    '',
    ...rows.flatMap((row) => [
      `  ${row.key.padEnd(keyWidth)}${row.env.padEnd(envWidth)}${row.default}`,
      `  ${' '.repeat(keyWidth)}${row.help}`,
    ]),
    '',
    'There is no --token flag: a command line is visible to every local user (ps). Put the token in a',
    `file readable only by the agent (tokenFile, ${SETTINGS.tokenFile.env} or --token-file), or in ${SETTINGS.token.env}.`,
    '',
    'The token enrols the agent: on its first connection the agent registers the public half of its key',
    '(keyFile) and from then on proves it holds the key; the token alone no longer connects. Reinstalling',
    'on the same host keeps the key file and keeps working. On another host, or with a lost key file,',
    'an admin rotates the token in the admin console first and the agent is installed with the new one.',
  ].join('\n');
}

/**
 * The `postern-agent` command line. Setting flags belong to the program, so they work before or
 * after the command name (`postern-agent --config x run`, `postern-agent run --config x`).
 */
export function buildCli(): Command {
  const program = new Command('postern-agent')
    .description('Postern agent: applies just-in-time access grants from a Postern server to this host')
    .version(POSTERN_VERSION, '-v, --version', 'print the version')
    .option(
      '--config <path>',
      `JSON config file (default: $${CONFIG_FILE_ENV}, else ${DEFAULT_CONFIG_FILE} if present)`,
    )
    .option('--server-url <url>', `Postern server URL (${SETTINGS.serverUrl.env})`)
    .option(
      '--token-file <path>',
      `file holding the agent token, mode 600 (${SETTINGS.tokenFile.env}); there is no --token flag because command lines show in ps`,
    )
    .option('--state-file <path>', `state file (${SETTINGS.stateFile.env})`)
    .option('--key-file <path>', `agent key file, mode 600 (${SETTINGS.keyFile.env})`)
    .option('--log-level <level>', `log level (${SETTINGS.logLevel.env})`)
    .configureHelp({ showGlobalOptions: true })
    .showHelpAfterError('(postern-agent --help lists the commands and settings)')
    // Usage errors end through main like configuration errors (exit 2), not with commander's exit 1.
    .exitOverride()
    .addHelpText('after', settingsHelp());

  program
    .command('run', { isDefault: true })
    .description('connect to the server and apply grants until SIGTERM or SIGINT (the default command)')
    .addHelpText('after', settingsHelp())
    .action(async (_options: unknown, command: Command) => {
      await runAgent(command.optsWithGlobals<ConfigFlags>());
    });

  program
    .command('check-config')
    .description('validate the configuration and print it as JSON (the token shows as "[set]")')
    .addHelpText('after', settingsHelp())
    .action((_options: unknown, command: Command) => {
      const { config, warnings } = loadConfig({ flags: command.optsWithGlobals<ConfigFlags>() });
      for (const warning of warnings) process.stderr.write(`postern-agent: warning: ${warning}\n`);
      process.stdout.write(`${JSON.stringify(describeConfig(config), null, 2)}\n`);
    });

  return program;
}
