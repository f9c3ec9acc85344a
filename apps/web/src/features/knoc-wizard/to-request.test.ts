import { describe, expect, it } from 'vitest';
import { initialKnocWizardState, type KnocWizardState } from './knoc-wizard-state';
import { checkedCreateInput, toCreateInput, uniqueBackendName } from './to-request';

describe('backend name', () => {
  it('is the description, numbered when a backend already has it', () => {
    expect(uniqueBackendName(' SSH ', [])).toBe('SSH');
    expect(uniqueBackendName('SSH', ['ssh', 'SSH (2)'])).toBe('SSH (3)');
  });
});

describe('script create body', () => {
  const state: KnocWizardState = {
    ...initialKnocWizardState('review', 'script'),
    agentId: 'agent-1',
    settings: { Type: 'script', Backend: { Command: 'open.sh' }, Acl: { Name: 'door' } },
    options: { ...initialKnocWizardState('review', 'script').options, Description: 'Door' },
    envVars: {
      EnvVars: [
        { Name: 'REGION', Value: 'eu', Sensitive: false, Encrypted: false },
        { Name: '', Value: '', Sensitive: false, Encrypted: false },
        { Name: 'TOKEN', Value: 's3cret', Sensitive: true, Encrypted: false },
      ],
    },
  };

  it('declares the named variables on the backend and gives their values to the knoc', () => {
    const body = checkedCreateInput(toCreateInput(state, 'Door'));
    expect(body.Backend).toEqual({
      Name: 'Door',
      AgentID: 'agent-1',
      Config: {
        script: {
          Command: 'open.sh',
          EnvVars: [
            { Name: 'REGION', Sensitive: false },
            { Name: 'TOKEN', Sensitive: true },
          ],
        },
      },
    });
    expect(body.Knoc.Config).toEqual({
      script: {
        Name: 'door',
        EnvVars: [
          { Name: 'REGION', Value: 'eu', Sensitive: false },
          { Name: 'TOKEN', Value: 's3cret', Sensitive: true },
        ],
      },
    });
  });

  it('refuses to send a body the protocol refuses', () => {
    const broken = { ...state, settings: { ...state.settings, Backend: { Command: '' } } };
    expect(() => checkedCreateInput(toCreateInput(broken, 'Door'))).toThrow();
  });
});
