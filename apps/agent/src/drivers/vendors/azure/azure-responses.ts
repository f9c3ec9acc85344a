import { z } from 'zod';
import type { VendorAnswer, VendorRules } from '../../kit/vendor-outcome.js';

/**
 * The Azure answers the driver reads (VENDORS.md 1.8; the ARM spec `Microsoft.Network/stable/2024-05-01/nsg.json`
 * and its examples). Unknown fields are kept: ARM adds fields, and the driver reads only these.
 */

/** The authority's token endpoint (`/{tenant}/oauth2/v2.0/token`, client credentials). */
export const AzureTokenAnswer = z.looseObject({
  access_token: z.string().min(1),
  // v2.0 sends a number; older endpoints a string of digits.
  expires_in: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]),
});

/** `GET /subscriptions`: the subscriptions the service principal can see. */
export const AzureSubscriptionsAnswer = z.looseObject({
  value: z.array(z.looseObject({ subscriptionId: z.string().min(1), state: z.string().optional() })),
  nextLink: z.string().nullish(),
});

export const SecurityRuleProperties = z.looseObject({
  priority: z.number().int().optional(),
  direction: z.string().optional(),
  access: z.string().optional(),
  protocol: z.string().optional(),
  sourceAddressPrefix: z.string().optional(),
  destinationAddressPrefix: z.string().optional(),
  destinationPortRange: z.string().optional(),
  provisioningState: z.string().optional(),
});

/** One security rule (`GET …/securityRules/{name}`, and the PUT's answer). */
export const AzureSecurityRule = z.looseObject({
  name: z.string(),
  properties: SecurityRuleProperties.default({}),
});
export type AzureSecurityRule = z.output<typeof AzureSecurityRule>;

/** `GET …/securityRules`: one page of the NSG's own rules. */
export const AzureSecurityRuleList = z.looseObject({
  value: z.array(AzureSecurityRule),
  nextLink: z.string().nullish(),
});

/** The network security group itself, read only to learn that it exists in a subscription. */
export const AzureNsg = z.looseObject({ name: z.string() });

/** The `Azure-AsyncOperation` status resource. */
export const AzureOperationStatus = z.looseObject({
  status: z.string(),
  error: z.looseObject({ code: z.string().optional(), message: z.string().optional() }).nullish(),
});

const AzureError = z.looseObject({
  error: z.looseObject({ code: z.string().optional(), message: z.string().optional() }),
});

/** ARM's error code in an answer body (`{"error":{"code":…}}`), or null. */
export function azureErrorCode(body: unknown): string | null {
  const parsed = AzureError.safeParse(body);
  return parsed.success ? (parsed.data.error.code ?? null) : null;
}

/**
 * ARM's code for a rule whose priority another rule of the same direction already has: HTTP 400
 * "Security rule <a> conflicts with rule <b>. Rules cannot have the same Priority and Direction."
 * Not in the published examples; as ARM answers it in public reports (egen/bucc#183,
 * hashicorp/terraform-provider-azurerm#11137, Azure/aks-engine#2106).
 */
export const AZURE_PRIORITY_CONFLICT = 'SecurityRuleConflict';

/** "HTTP 400 SecurityRuleInvalidAddressPrefix: …": an answer as a short message. */
export function describeAzureAnswer({ status, body }: VendorAnswer): string {
  const parsed = AzureError.safeParse(body);
  if (!parsed.success) return `HTTP ${status}`;
  const { code, message } = parsed.data.error;
  return `HTTP ${status}${code === undefined ? '' : ` ${code}`}${message === undefined ? '' : `: ${message}`}`;
}

/**
 * How ARM spells the answers that are not plain success: a DELETE of an absent rule is 404 (or 204),
 * a rule limit is an error code naming a limit or quota (the exact code is not published in the
 * examples: matched loosely), and "another operation is ongoing" on the NSG is worth another try.
 */
export const AZURE_RULES: VendorRules = {
  alreadyAbsent: ({ status }) => status === 404 || status === 204,
  limitReached: ({ body }) => /Limit(Reached|Exceeded)|QuotaExceeded/i.test(azureErrorCode(body) ?? ''),
  retryable: ({ status, body }) =>
    status === 409 && /AnotherOperation|RetryableError/i.test(azureErrorCode(body) ?? ''),
};
