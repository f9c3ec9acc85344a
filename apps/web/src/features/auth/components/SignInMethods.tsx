import { useId, useState, type ReactNode } from 'react';
import { Button, Collapse, Divider, Stack } from '@mantine/core';
import { IconChevronDown, IconKey } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';

/** Props of {@link SignInMethods}. */
export interface SignInMethodsProps {
  /** Whether SSO is set up; undefined while the login page is still finding out. */
  ssoAvailable: boolean | undefined;
  /** Starts the SSO round trip. */
  onStartSso: () => void;
  /** Shown with SSO only, outside the collapsible section: options for both ways (the kiosk box). */
  ssoOptions?: ReactNode;
  /** The local username-and-password form. */
  children: ReactNode;
}

/**
 * The ways to sign in (spec §2). Without SSO, just the local form. With SSO, a prominent SSO button
 * first and the local form in a section that is closed until its toggle is pressed.
 *
 * The local form is shown at once and stays mounted in the same place whatever the answer about
 * SSO, so nothing typed or autofilled is lost when it folds away; whoever already used it before
 * the answer came finds it still open.
 */
export function SignInMethods({ ssoAvailable, onStartSso, ssoOptions, children }: SignInMethodsProps) {
  const { t } = useTranslation();
  const [localOpen, setLocalOpen] = useState(false);
  const sectionId = useId();
  const sso = ssoAvailable === true;

  return (
    <Stack>
      {sso ? (
        <>
          <Button size="md" fullWidth leftSection={<IconKey size={18} aria-hidden />} onClick={onStartSso}>
            {t('sso.signIn')}
          </Button>
          {ssoOptions}
          <Divider />
          <Button
            variant="subtle"
            fullWidth
            h="auto"
            py={6}
            // A long label (German especially) wraps instead of being cut off.
            styles={{ label: { whiteSpace: 'normal', textAlign: 'center', lineHeight: 1.4 } }}
            aria-expanded={localOpen}
            aria-controls={sectionId}
            onClick={() => setLocalOpen((open) => !open)}
            rightSection={
              <IconChevronDown size={16} aria-hidden style={{ transform: localOpen ? 'rotate(180deg)' : undefined }} />
            }
          >
            {t('sso.localToggle')}
          </Button>
        </>
      ) : null}
      {/* No transition: the section must not visibly fold up when the SSO answer arrives after the first paint. */}
      <Collapse
        expanded={!sso || localOpen}
        transitionDuration={0}
        id={sectionId}
        onFocusCapture={ssoAvailable === undefined ? () => setLocalOpen(true) : undefined}
      >
        {children}
      </Collapse>
    </Stack>
  );
}
