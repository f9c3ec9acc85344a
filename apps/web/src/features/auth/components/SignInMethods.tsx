import { useId, useState, type ReactNode } from 'react';
import { Button, Collapse, Divider, Stack } from '@mantine/core';
import { IconChevronDown, IconKey } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { hasSso, type SsoMethod } from '../sso';

/** Props of {@link SignInMethods}. */
export interface SignInMethodsProps {
  /** The single sign-on ways set up (none: the local form alone); undefined while the login page is still finding out. */
  ssoMethods: readonly SsoMethod[] | undefined;
  /** Shown with SSO only, outside the collapsible section: options for both ways (the kiosk box). */
  ssoOptions?: ReactNode;
  /**
   * "Sign in with a passkey", when the realm offers it: with SSO it sits among the SSO buttons
   * (a sign-in without typing, like them); without SSO, beneath the local form.
   */
  passkey?: ReactNode;
  /** The local username-and-password form. */
  children: ReactNode;
}

/**
 * The ways to sign in (spec §2). Without SSO, just the local form. With SSO, a prominent button for
 * each way (SAML, OpenID Connect) first and the local form in a section that is closed until its
 * toggle is pressed. A passkey sign-in, when offered, joins the SSO buttons, or follows the form.
 *
 * The local form is shown at once and stays mounted in the same place whatever the answer about
 * SSO, so nothing typed or autofilled is lost when it folds away; whoever already used it before
 * the answer came finds it still open.
 */
export function SignInMethods({ ssoMethods, ssoOptions, passkey, children }: SignInMethodsProps) {
  const { t } = useTranslation();
  const [localOpen, setLocalOpen] = useState(false);
  const sectionId = useId();
  const sso = hasSso(ssoMethods);

  return (
    <Stack>
      {sso ? (
        <>
          {ssoMethods?.map((method, index) => (
            <Button
              key={method.protocol}
              size="md"
              fullWidth
              // The first way is the one Enter starts; the others are offered beside it.
              variant={index === 0 ? 'filled' : 'light'}
              leftSection={<IconKey size={18} aria-hidden />}
              // A long provider name (or German) wraps, and the button grows with it.
              h="auto"
              mih={42}
              py={6}
              styles={{ label: { whiteSpace: 'normal', textAlign: 'center', lineHeight: 1.4 } }}
              onClick={method.start}
            >
              {method.label}
            </Button>
          ))}
          {passkey}
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
        onFocusCapture={ssoMethods === undefined ? () => setLocalOpen(true) : undefined}
      >
        {children}
      </Collapse>
      {passkey === undefined || sso ? null : (
        <>
          <Divider label={t('passkey.or')} labelPosition="center" />
          {passkey}
        </>
      )}
    </Stack>
  );
}
