import { screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import {
  AdminStatusResponse,
  AgentListResponse,
  BackendListResponse,
  GroupListResponse,
  KnocWizardCreateResponse,
  UserListResponse,
  type AgentRecord,
  type BackendRecord,
} from '@postern/protocol';
import { agentCapabilities, agentRecord, newAgentRecord } from '../records/agents';
import { groupRecord } from '../records/groups';
import { adminStatus, knocRecord, licensingSummary, userRecord } from '../fixtures';
import { data, type FakeRoute, type TypedHandler } from '../typed-fake-api';
import { openAdminScreen } from './admin';

/** edge-1 can drive everything; fresh never connected; old runs 1.5.0. */
export const EDGE = agentRecord();
export const FRESH = newAgentRecord();
export const OLD = agentRecord({
  ID: '0190a0b0-0000-7000-8000-000000000003',
  Name: 'old-box',
  Version: '1.5.0',
  Capabilities: agentCapabilities({ haproxy: { socket_location: '/run/haproxy/admin.sock' } }),
});

export const USERS = [
  userRecord(),
  userRecord({ ID: 'u-bob', Name: 'Bob', UserName: 'bob', Company: 'Acme', AuthType: 'LDAP' }),
  userRecord({ ID: 'u-sam', Name: 'Sam', UserName: 'sam', AuthType: 'SAML' }),
];

export const GROUPS = [
  groupRecord({ ID: 'g-ops', Name: 'Operations', Description: 'On-call staff', Type: 'local', UserIDs: ['u-ada'] }),
  groupRecord({ ID: 'g-eng', Name: 'Engineering', Description: 'From the IdP', Type: 'saml', UserIDs: [] }),
];

/** A backend someone made before, whose name a new backend must not take. */
export const takenBackend = (Name: string): BackendRecord => ({
  ID: `b-${Name}`,
  Name,
  AgentID: EDGE.ID,
  AgentName: EDGE.Name,
  Type: 'script',
  Config: { script: { Command: 'other.sh', EnvVars: [] } },
  LastModifiedAt: '2026-01-01T00:00:00.000Z',
  LastModifiedBy: 'grace',
});

/** The answer of a successful create. */
export const CREATED = data(KnocWizardCreateResponse, {
  KnocID: 'k-new',
  ApiKey: null,
  AllowlistURL: null,
  Knoc: knocRecord({ ID: 'k-new' }),
});

/** Opens a wizard for a licensed admin with agents, users, groups and `routes`. */
export function openWizard(
  path: string,
  routes: Partial<Record<FakeRoute, TypedHandler>> = {},
  agents: AgentRecord[] = [EDGE, FRESH],
) {
  return openAdminScreen(path, {
    'GET /api/admin/status': data(AdminStatusResponse, adminStatus({ Licensing: licensingSummary() })),
    'GET /api/admin/agents': data(AgentListResponse, agents),
    'GET /api/admin/users': data(UserListResponse, USERS),
    'GET /api/admin/groups': data(GroupListResponse, GROUPS),
    'GET /api/admin/backends': data(BackendListResponse, []),
    'POST /api/admin/knocs': CREATED,
    ...routes,
  });
}

/** The heading of the step on screen, once shown. */
export const stepHeading = (name: string) => screen.findByRole('heading', { level: 2, name }, { timeout: 5000 });

/** Presses Next and waits for the next step's heading. */
export async function next(user: UserEvent, nextTitle: string) {
  await user.click(screen.getByRole('button', { name: 'Next' }));
  await stepHeading(nextTitle);
}

/** The select whose label starts with `label`. */
export const selectNamed = (label: string) => screen.getByRole('combobox', { name: new RegExp(`^${label}`) });

/** Chooses `option` in the select labelled `label`. */
export async function choose(user: UserEvent, label: string, option: string) {
  await user.selectOptions(await screen.findByRole('combobox', { name: new RegExp(`^${label}`) }), option);
}

/** Picks `option` in the searchable Mantine select labelled `label` (its dropdown stays hidden in jsdom). */
export async function pick(user: UserEvent, label: string, option: string) {
  const combobox = screen.getByRole('combobox', { name: label });
  await user.click(combobox);
  const listbox = await waitFor(() => {
    const element = document.getElementById(combobox.getAttribute('aria-controls') ?? '');
    if (element === null) throw new Error('no listbox yet');
    return element;
  });
  await user.click(within(listbox).getByRole('option', { name: option, hidden: true }));
}

/** Fills the options step with a description and goes on to the users step. */
export async function fillOptions(user: UserEvent, description: string) {
  await user.type(screen.getByRole('textbox', { name: /^Name/ }), description);
  await next(user, 'Users and groups');
}

/** Ticks a row's checkbox in the users or groups tables. */
export async function select(user: UserEvent, name: string) {
  await user.click(await screen.findByRole('checkbox', { name: `Select ${name}` }));
}

/** The review's summary card of this title. */
export const summary = (title: string) => within(screen.getByRole('region', { name: title }));
