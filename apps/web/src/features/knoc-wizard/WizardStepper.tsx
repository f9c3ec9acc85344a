import { useCallback, useEffect, useRef, useState, type Dispatch } from 'react';
import { Box, Button, Group, Stack, Stepper, Title, VisuallyHidden } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { StepFormContext, type StepForm } from './step-form';
import {
  backMove,
  nextMove,
  stepById,
  stepStates,
  type WizardAction,
  type WizardState,
  type WizardStep,
} from './wizard';

/** The spec's stepper width. */
export const STEPPER_WIDTH_PX = 1024;

/** Props of {@link WizardStepper}. */
export interface WizardStepperProps<S extends WizardState> {
  steps: readonly WizardStep<S>[];
  state: S;
  dispatch: Dispatch<WizardAction<S>>;
  /** Next on the review step: send what the wizard gathered. Nothing is sent before. */
  onSubmit: () => void;
  /** The submit is on its way: the buttons wait. */
  submitting: boolean;
}

const STATE_TEXT_KEY = {
  completed: 'knocWizard.stepper.completed',
  active: 'knocWizard.stepper.active',
  pending: 'knocWizard.stepper.pending',
  disabled: 'knocWizard.stepper.disabled',
} as const;

/**
 * The wizards' stepper (spec §2): completed, active and pending steps, the active step's title as a
 * heading that takes the focus, its content, and Back and Next. Next on a step with a form validates
 * it first; an invalid form shows its errors and moves the focus to the first one. Next on a step
 * without a form is disabled until the step can advance. Back mirrors Next; on the first step it goes
 * back in the browser's history. Next on the review step submits.
 */
export function WizardStepper<S extends WizardState>({
  steps,
  state,
  dispatch,
  onSubmit,
  submitting,
}: WizardStepperProps<S>) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const step = stepById(steps, state.step);
  const states = stepStates(steps, state);
  const form = useRef<StepForm | null>(null);
  // Whether the step on screen has a form: its Next validates instead of being disabled.
  const [hasForm, setHasForm] = useState(false);
  const register = useCallback((registered: StepForm | null) => {
    form.current = registered;
    setHasForm(registered !== null);
  }, []);
  const titleRef = useRef<HTMLHeadingElement>(null);
  const contentRef = useRef<HTMLDivElement>(null);
  const [invalidAttempt, setInvalidAttempt] = useState(0);

  useEffect(() => {
    titleRef.current?.focus();
  }, [state.step]);

  useEffect(() => {
    if (invalidAttempt === 0) return;
    contentRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [invalidAttempt]);

  const update = useCallback((patch: Partial<S>) => dispatch({ type: 'update', patch }), [dispatch]);
  const StepComponent = step.component;
  const isReview = step.next(state) === null;

  function next() {
    if (form.current !== null && !form.current.validate()) {
      setInvalidAttempt((attempt) => attempt + 1);
      return;
    }
    const move = nextMove(steps, state);
    if (move.type === 'goTo') dispatch({ type: 'goTo', step: move.step });
    if (move.type === 'submit') onSubmit();
  }

  function back() {
    const move = backMove(steps, state);
    if (move.type === 'goTo') dispatch({ type: 'goTo', step: move.step });
    else void navigate(-1);
  }

  return (
    <Box maw={STEPPER_WIDTH_PX} w="100%">
      <Stepper active={steps.indexOf(step)} size="sm" mb="lg">
        {steps.map((candidate) => {
          const stepState = candidate.disabled?.(state) ? 'disabled' : (states[candidate.id] ?? 'pending');
          return (
            <Stepper.Step
              key={candidate.id}
              label={t(candidate.titleKey)}
              description={<VisuallyHidden>{t(STATE_TEXT_KEY[stepState])}</VisuallyHidden>}
              aria-current={candidate.id === step.id ? 'step' : undefined}
              data-step-state={stepState}
              // Struck through rather than faded: a faded label would fall below readable contrast.
              td={stepState === 'disabled' ? 'line-through' : undefined}
            />
          );
        })}
      </Stepper>
      <Stack gap="md" ref={contentRef}>
        <Title order={2} size="h3" tabIndex={-1} ref={titleRef}>
          {t(step.titleKey)}
        </Title>
        <StepFormContext.Provider value={register}>
          <StepComponent key={step.id} state={state} update={update} />
        </StepFormContext.Provider>
        <Group justify="space-between">
          <Button variant="default" onClick={back} disabled={submitting}>
            {t('knocWizard.buttons.back')}
          </Button>
          <Button onClick={next} loading={submitting} disabled={!hasForm && !step.canAdvance(state)}>
            {isReview ? t('knocWizard.buttons.submit') : t('knocWizard.buttons.next')}
          </Button>
        </Group>
      </Stack>
    </Box>
  );
}
