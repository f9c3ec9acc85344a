import { useEffect, useRef } from 'react';
import { Stack } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { AgentRecord, BackendType } from '@postern/protocol';
import { backendFieldEntries, backendFieldLabelKey } from '../backend-fields';
import { addressAfterChange, isSocketType, type SocketDefaultsContext, type SocketProtocol } from '../backend-defaults';
import { configAt, setConfigValue, type ConfigForm } from '../config-form';
import type { ConfigFormMode, ConfigValues } from '../config-values';
import { ConfigError } from './ConfigError';
import { ConfigField } from './ConfigField';

/** Props of {@link BackendConfigFields}. */
export interface BackendConfigFieldsProps {
  type: BackendType;
  /** A useZodForm form holding the config's fields at `path`. */
  form: ConfigForm;
  /** Where the type's fields live in the form's values, e.g. `Config.fortios` or `Backend.Config.haproxy`. */
  path: string;
  /** update: secrets show RECORDED and are kept while left empty. */
  mode: ConfigFormMode;
  /** Fields shown elsewhere (the script wizard's variables have a step of their own). */
  exclude?: readonly string[];
  /** The chosen agent: its reported HAProxy socket is the unix Address default. */
  agent: AgentRecord | null;
  /** The host of the tcp Address default (`{ip}:9999`). */
  hostIp?: string;
}

/**
 * A backend type's config fields (spec §3 table), bound to a form at `path`. Errors of the form's
 * schema and of the server (`{Err, Extra: "Config.fortios.Url"}`) show on the field they name; an
 * error of the config as a whole shows below the fields.
 */
export function BackendConfigFields({ type, form, path, mode, agent, hostIp, exclude = [] }: BackendConfigFieldsProps) {
  const { t } = useTranslation();
  const context: SocketDefaultsContext = { agentSocket: agent?.Capabilities?.haproxy.socket_location ?? null, hostIp };
  useSocketAddressFollowsAgent(type, form, path, mode, context);

  const changeProtocol = (protocol: string) => {
    if (!isSocketType(type)) return;
    const config = configAt(form, path);
    const before = { protocol: config.Protocol as SocketProtocol, context };
    const address = addressAfterChange(type, addressOf(config), before, {
      protocol: protocol as SocketProtocol,
      context,
    });
    setConfigValue(form, `${path}.Protocol`, protocol);
    setConfigValue(form, `${path}.Address`, address);
  };

  return (
    <Stack gap="sm">
      {backendFieldEntries(type)
        .filter(([field]) => !exclude.includes(field))
        .map(([field, descriptor]) => (
          <ConfigField
            key={field}
            form={form}
            path={`${path}.${field}`}
            descriptor={descriptor}
            label={t(backendFieldLabelKey(type, field))}
            mode={mode}
            agent={agent}
            onValueChange={field === 'Protocol' ? changeProtocol : undefined}
          />
        ))}
      <ConfigError error={form.errors[path]} />
    </Stack>
  );
}

const addressOf = (config: ConfigValues) => (typeof config.Address === 'string' ? config.Address : '');

/**
 * While creating, a socket Address that is still the previous agent's default follows the newly
 * chosen agent's reported socket. A customised Address, or any Address on update, stays.
 */
function useSocketAddressFollowsAgent(
  type: BackendType,
  form: ConfigForm,
  path: string,
  mode: ConfigFormMode,
  context: SocketDefaultsContext,
) {
  const { agentSocket = null, hostIp } = context;
  const previous = useRef<SocketDefaultsContext>({ agentSocket, hostIp });
  useEffect(() => {
    const before = previous.current;
    previous.current = { agentSocket, hostIp };
    if (mode !== 'create' || !isSocketType(type)) return;
    if (before.agentSocket === agentSocket && before.hostIp === hostIp) return;
    const config = configAt(form, path);
    const protocol = config.Protocol as SocketProtocol;
    const address = addressAfterChange(
      type,
      addressOf(config),
      { protocol, context: before },
      {
        protocol,
        context: { agentSocket, hostIp },
      },
    );
    if (address !== config.Address) setConfigValue(form, `${path}.Address`, address);
    // The form object changes identity on every render; the agent is what this follows.
  }, [agentSocket, hostIp, mode, type, path]); // eslint-disable-line react-hooks/exhaustive-deps
}
