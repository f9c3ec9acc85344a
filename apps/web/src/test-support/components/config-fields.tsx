import { Button } from '@mantine/core';
import { z } from 'zod';
import type { AgentRecord, BackendType } from '@postern/protocol';
import { useZodForm } from '@/lib/forms/use-zod-form';
import { aclConfigFormSchema, backendConfigFormSchema, configIssueKey } from '@/features/backends/config-rules';
import type { ConfigFormMode, ConfigValues } from '@/features/backends/config-values';
import { AclConfigFields } from '@/features/backends/components/AclConfigFields';
import { BackendConfigFields } from '@/features/backends/components/BackendConfigFields';

/** Test support only: a form holding one config at `Outer.Config.<type>`, as a wizard would nest it. */
export interface HarnessProps {
  kind: 'backend' | 'acl';
  type: BackendType;
  mode?: ConfigFormMode;
  initial: ConfigValues;
  agent?: AgentRecord | null;
  /** For a knoc config: its backend's config (an nftables knoc's table). */
  backendConfig?: ConfigValues;
  onSubmit?: (config: ConfigValues) => void;
  /** A server refusal the Refuse button puts on the form. */
  refusal?: unknown;
}

/** The backend or ACL config fields of `type` in that form, with a Submit and a Refuse button. */
export function ConfigFieldsHarness({
  kind,
  type,
  mode = 'create',
  initial,
  agent = null,
  backendConfig,
  onSubmit,
  refusal,
}: HarnessProps) {
  const config = kind === 'backend' ? backendConfigFormSchema(mode) : aclConfigFormSchema();
  const form = useZodForm({
    schema: z.object({ Outer: z.object({ Config: config }) }),
    issueKey: configIssueKey,
    initialValues: { Outer: { Config: { [type]: initial } } },
  });
  const path = `Outer.Config.${type}`;
  return (
    <form noValidate onSubmit={form.onSubmit((values) => onSubmit?.(values.Outer.Config[type] ?? {}))}>
      {kind === 'backend' ? (
        <BackendConfigFields type={type} form={form} path={path} mode={mode} agent={agent} />
      ) : (
        <AclConfigFields type={type} form={form} path={path} mode={mode} agent={agent} backendConfig={backendConfig} />
      )}
      <Button type="submit">Submit</Button>
      <Button onClick={() => form.setApiError(refusal)}>Refuse</Button>
    </form>
  );
}
