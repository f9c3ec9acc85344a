import type { ComponentType } from 'react';

/*
 * A wizard is data: a list of steps over one state object, walked by WizardStepper. The flow rules
 * (which step follows which) are pure functions of the state, so they are tested without rendering.
 */

/** The state every wizard carries: the id of the step on screen. */
export interface WizardState {
  step: string;
}

/** What a step's component receives: the wizard's state and a way to change part of it. */
export interface StepProps<S> {
  state: S;
  update: (patch: Partial<S>) => void;
}

/** One step of a wizard. */
export interface WizardStep<S> {
  id: string;
  /** The translation key of the step's title, shown in the stepper and as the step's heading. */
  titleKey: string;
  component: ComponentType<StepProps<S>>;
  /**
   * Whether the wizard may move on. A step without a form gates Next on this alone (Next stays
   * disabled, say, until an agent is chosen); a step with a form is validated first.
   */
  canAdvance: (state: S) => boolean;
  /** The step after this one; null on the review step, whose Next submits. */
  next: (state: S) => string | null;
  /** The step before this one; null on the first step, whose Back is the browser's history back. */
  back: (state: S) => string | null;
  /** Whether the step is not part of the way for this state (the application wizard's 3.1 or 3.2). */
  disabled?: (state: S) => boolean;
}

/** A step of a wizard whose steps simply follow one another (see {@link linearSteps}). */
export type LinearStep<S> = Omit<WizardStep<S>, 'next' | 'back'>;

/** Steps in a fixed order: each step's next is the one after it, its back the one before. */
export function linearSteps<S>(steps: readonly LinearStep<S>[]): WizardStep<S>[] {
  return steps.map((step, index) => ({
    ...step,
    next: () => steps[index + 1]?.id ?? null,
    back: () => steps[index - 1]?.id ?? null,
  }));
}

/** The step with this id (the first one when none has it). */
export function stepById<S>(steps: readonly WizardStep<S>[], id: string): WizardStep<S> {
  const found = steps.find((step) => step.id === id) ?? steps[0];
  if (found === undefined) throw new Error('A wizard needs at least one step');
  return found;
}

/** A change to a wizard's state. */
export type WizardAction<S extends WizardState> =
  | { type: 'update'; patch: Partial<S> }
  | { type: 'goTo'; step: string }
  /** Starting the wizard and succeeding both put it back to its initial state. */
  | { type: 'reset'; initial: S };

/** The wizard state's reducer. */
export function wizardReducer<S extends WizardState>(state: S, action: WizardAction<S>): S {
  switch (action.type) {
    case 'update':
      return { ...state, ...action.patch };
    case 'goTo':
      return { ...state, step: action.step };
    case 'reset':
      return action.initial;
  }
}

/** Where Next leads from the current step: another step, or 'submit' on the review step. */
export function nextMove<S extends WizardState>(
  steps: readonly WizardStep<S>[],
  state: S,
): { type: 'goTo'; step: string } | { type: 'submit' } | { type: 'blocked' } {
  const step = stepById(steps, state.step);
  if (!step.canAdvance(state)) return { type: 'blocked' };
  const next = step.next(state);
  return next === null ? { type: 'submit' } : { type: 'goTo', step: next };
}

/** Where Back leads: the previous step, or 'history' (leave the wizard the way the admin came). */
export function backMove<S extends WizardState>(
  steps: readonly WizardStep<S>[],
  state: S,
): { type: 'goTo'; step: string } | { type: 'history' } {
  const back = stepById(steps, state.step).back(state);
  return back === null ? { type: 'history' } : { type: 'goTo', step: back };
}

/**
 * Each step's display state: the steps walked to reach the current one are completed, the current
 * one is active, every other one (ahead, or skipped by a branching flow) is pending.
 */
export function stepStates<S extends WizardState>(
  steps: readonly WizardStep<S>[],
  state: S,
): Record<string, 'completed' | 'active' | 'pending'> {
  const walked = new Set<string>();
  let id: string | null = state.step;
  // Walk back from the current step; the bound stops a flow whose back links form a loop.
  for (let guard = 0; id !== null && guard < steps.length; guard += 1) {
    const step: WizardStep<S> = stepById(steps, id);
    id = step.back(state);
    if (id !== null) walked.add(id);
  }
  return Object.fromEntries(
    steps.map((step) => [step.id, step.id === state.step ? 'active' : walked.has(step.id) ? 'completed' : 'pending']),
  );
}
