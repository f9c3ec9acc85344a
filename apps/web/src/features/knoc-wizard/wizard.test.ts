import { describe, expect, it } from 'vitest';
import {
  backMove,
  linearSteps,
  nextMove,
  stepStates,
  wizardReducer,
  type LinearStep,
  type WizardState,
  type WizardStep,
} from './wizard';

interface TestState extends WizardState {
  chosen: boolean;
  mode: 'a' | 'b';
}

const step = (id: string, canAdvance: (state: TestState) => boolean = () => true): LinearStep<TestState> => ({
  id,
  titleKey: `steps.${id}`,
  component: () => null,
  canAdvance,
});

const steps = linearSteps([step('agent', (state) => state.chosen), step('settings'), step('review')]);
const at = (id: string, patch: Partial<TestState> = {}): TestState => ({ step: id, chosen: true, mode: 'a', ...patch });

describe('linear wizard flow', () => {
  it.each([
    ['agent', { type: 'goTo', step: 'settings' }],
    ['settings', { type: 'goTo', step: 'review' }],
    ['review', { type: 'submit' }],
  ])('Next from %s', (id, move) => {
    expect(nextMove(steps, at(id))).toEqual(move);
  });

  it('blocks Next while the step cannot advance', () => {
    expect(nextMove(steps, at('agent', { chosen: false }))).toEqual({ type: 'blocked' });
  });

  it.each([
    ['agent', { type: 'history' }],
    ['settings', { type: 'goTo', step: 'agent' }],
    ['review', { type: 'goTo', step: 'settings' }],
  ])('Back from %s mirrors Next', (id, move) => {
    expect(backMove(steps, at(id))).toEqual(move);
  });

  it('shows the walked steps completed, the current one active and the rest pending', () => {
    expect(stepStates(steps, at('settings'))).toEqual({ agent: 'completed', settings: 'active', review: 'pending' });
    expect(stepStates(steps, at('agent'))).toEqual({ agent: 'active', settings: 'pending', review: 'pending' });
  });
});

describe('branching wizard flow', () => {
  // a: one → two → three; b: one → three (two is skipped, so it stays pending).
  const branching: WizardStep<TestState>[] = [
    { ...step('one'), next: (s) => (s.mode === 'a' ? 'two' : 'three'), back: () => null },
    { ...step('two'), next: () => 'three', back: () => 'one' },
    { ...step('three'), next: () => null, back: (s) => (s.mode === 'a' ? 'two' : 'one') },
  ];

  it('marks a skipped step pending', () => {
    expect(stepStates(branching, at('three', { mode: 'b' }))).toEqual({
      one: 'completed',
      two: 'pending',
      three: 'active',
    });
    expect(nextMove(branching, at('one', { mode: 'b' }))).toEqual({ type: 'goTo', step: 'three' });
    expect(backMove(branching, at('three', { mode: 'b' }))).toEqual({ type: 'goTo', step: 'one' });
  });
});

describe('wizard state reducer', () => {
  const initial = at('agent', { chosen: false });

  it('updates parts of the state and moves between steps', () => {
    const updated = wizardReducer(initial, { type: 'update', patch: { chosen: true } });
    expect(updated).toEqual({ ...initial, chosen: true });
    expect(wizardReducer(updated, { type: 'goTo', step: 'review' })).toEqual({ ...updated, step: 'review' });
  });

  it('resets to the initial state (on start and after a success)', () => {
    const walked = at('review', { mode: 'b' });
    expect(wizardReducer(walked, { type: 'reset', initial })).toBe(initial);
  });
});
