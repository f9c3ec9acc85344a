import { z } from 'zod';
import {
  ErrorCodes,
  HttpUrl,
  type KnocCreateBody,
  type KnocUpdateBody,
  MAX_GRANT_MINUTES_MAX,
  MAX_GRANT_MINUTES_MIN,
  RequiredName,
  emptyOr,
  type BackendRecord,
  type BackendType,
  type KnocRecord,
} from '@postern/protocol';
import { defaultAclConfig } from '@/features/backends/backend-defaults';
import { addIssuesUnder, aclConfigFormSchema, CONFIG_MESSAGES } from '@/features/backends/config-rules';
import {
  aclConfigForRequest,
  aclConfigValues,
  envVarsForDeclarations,
  type ConfigValues,
  type EnvVarDeclaration,
} from '@/features/backends/config-values';

/** The values of the ACL dialog; MaximumGrantDuration in minutes, '' for none. */
export interface AclFormValues {
  Description: string;
  BackendID: string;
  Config: Record<string, ConfigValues>;
  URL: string;
  Category: string;
  Icon: string;
  ClickToGrant: boolean;
  HideFromUsers: boolean;
  MaximumGrantDuration: number | '';
}

/** Minutes: empty or 0 for none, else a whole number from 5 to 40320 (spec §5). */
const GrantMinutes = z.union([
  z.literal(''),
  z
    .number()
    .int(ErrorCodes.maximumGrantDurationRange)
    .refine(
      (minutes) => minutes === 0 || (minutes >= MAX_GRANT_MINUTES_MIN && minutes <= MAX_GRANT_MINUTES_MAX),
      ErrorCodes.maximumGrantDurationRange,
    ),
]);

/** The dialog's rules: Description, a backend (err.noBackendSelected), its type's config, URL, duration. */
export function aclFormSchema() {
  const config = aclConfigFormSchema();
  return z
    .object({
      Description: RequiredName,
      BackendID: z.string(),
      Config: z.unknown(),
      URL: emptyOr(HttpUrl),
      Category: z.string().max(200, CONFIG_MESSAGES.tooLong),
      Icon: z.string().max(200, CONFIG_MESSAGES.tooLong),
      MaximumGrantDuration: GrantMinutes,
    })
    .loose()
    .superRefine((values, context) => {
      if (values.BackendID === '') {
        context.addIssue({ code: 'custom', path: ['BackendID'], message: ErrorCodes.noBackendSelected });
        return;
      }
      addIssuesUnder(config, values.Config, context, ['Config']);
    });
}

/** The variables a script backend declares (none for other types). */
export function declaredEnvVars(backend: BackendRecord | undefined): EnvVarDeclaration[] {
  const declared = backend?.Config.script?.EnvVars;
  return Array.isArray(declared) ? (declared as EnvVarDeclaration[]) : [];
}

/** A new knoc's config for a backend: the type's defaults, a script's variables as it declares them. */
export function aclConfigForBackend(backend: BackendRecord): Record<string, ConfigValues> {
  const config = defaultAclConfig(backend.Type);
  if (backend.Type === 'script') config.EnvVars = envVarsForDeclarations(declaredEnvVars(backend), []);
  return { [backend.Type]: config };
}

/** A new knoc's values, or a stored one's (sensitive values empty: kept unless re-entered). */
export function aclFormValues(knoc?: KnocRecord): AclFormValues {
  if (knoc === undefined) {
    return {
      Description: '',
      BackendID: '',
      Config: {},
      URL: '',
      Category: '',
      Icon: '',
      ClickToGrant: true,
      HideFromUsers: false,
      MaximumGrantDuration: '',
    };
  }
  const stored = knoc.Config[knoc.BackendType];
  return {
    Description: knoc.Description,
    BackendID: knoc.BackendID,
    Config: { [knoc.BackendType]: aclConfigValues(knoc.BackendType, stored as ConfigValues | undefined) },
    URL: knoc.URL,
    Category: knoc.Category,
    Icon: knoc.Icon,
    ClickToGrant: knoc.ClickToGrant,
    HideFromUsers: knoc.HideFromUsers,
    MaximumGrantDuration: knoc.MaximumGrantDuration === 0 ? '' : knoc.MaximumGrantDuration / 60,
  };
}

/** The fields both bodies send from the dialog; minutes become seconds (×60), none 0. */
function dialogFields(values: AclFormValues, type: BackendType) {
  return {
    Description: values.Description.trim(),
    BackendID: values.BackendID,
    Config: { [type]: aclConfigForRequest(values.Config[type] ?? {}) },
    URL: values.URL.trim(),
    Category: values.Category.trim(),
    Icon: values.Icon.trim(),
    ClickToGrant: values.ClickToGrant,
    HideFromUsers: values.HideFromUsers,
    MaximumGrantDuration: values.MaximumGrantDuration === '' ? 0 : values.MaximumGrantDuration * 60,
  };
}

/** POST /api/admin/acls body of a validated dialog. */
export function toKnocCreateBody(values: AclFormValues, type: BackendType): z.input<typeof KnocCreateBody> {
  return dialogFields(values, type);
}

/** PUT body: the dialog's fields over the knoc's others (restrictions, grant type, parent), kept as stored. */
export function toKnocUpdateBody(
  knoc: KnocRecord,
  values: AclFormValues,
  type: BackendType,
): z.input<typeof KnocUpdateBody> {
  return {
    ID: knoc.ID,
    CGNATOpen: knoc.CGNATOpen,
    HideFromAdmins: knoc.HideFromAdmins,
    AutoBrowseUsers: knoc.AutoBrowseUsers,
    IpExclusions: knoc.IpExclusions,
    GrantType: knoc.GrantType,
    ParentID: knoc.ParentID,
    ...dialogFields(values, type),
  };
}
