import { useEffect } from 'react';
import { ActionIcon, Menu, Text } from '@mantine/core';
import { notifications } from '@mantine/notifications';
import { IconLanguage } from '@tabler/icons-react';
import { ACCOUNT_LANGUAGES, type AccountLanguage } from '@postern/protocol';
import { useTranslation } from 'react-i18next';
import { saveLanguage } from '../api';

/** Each language by its own name, as people look for it: never translated. */
const AUTONYMS: Record<AccountLanguage, string> = { en: 'English', de: 'Deutsch' };

/** The shipped language an i18next language resolves to (en-AU → en, de-AT → de). */
export function shippedLanguage(language: string | undefined): AccountLanguage {
  return (language ?? '').toLowerCase().startsWith('de') ? 'de' : 'en';
}

/** Props of {@link LanguageSwitch}. */
export interface LanguageSwitchProps {
  /**
   * The signed-in area whose account keeps the choice on the server; none on the sign-in pages,
   * where the choice is kept in this browser only (as every choice also is).
   */
  area?: 'user' | 'admin';
  /** The account's saved language from its status, once loaded: it is applied when it arrives. */
  saved?: AccountLanguage | null;
}

/**
 * A menu in the header to pick the app's language. Signed in, the choice is saved with the account,
 * so it follows the person to another browser; the account's saved choice is applied when the
 * status brings it.
 */
export function LanguageSwitch({ area, saved }: LanguageSwitchProps) {
  const { t, i18n } = useTranslation();
  const current = shippedLanguage(i18n.resolvedLanguage);

  useEffect(() => {
    if (saved !== undefined && saved !== null && shippedLanguage(i18n.resolvedLanguage) !== saved) {
      void i18n.changeLanguage(saved);
    }
    // Only when the saved choice arrives or changes: a choice made here must not be undone by a render.
  }, [saved, i18n]);

  const choose = (language: AccountLanguage) => {
    if (language === current) return;
    void i18n.changeLanguage(language);
    if (area === undefined) return;
    saveLanguage(area, language).catch(() =>
      notifications.show({ color: 'yellow', message: t('language.notSaved', { lng: language }) }),
    );
  };

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="default" size="lg" aria-label={t('language.change', { language: AUTONYMS[current] })}>
          <IconLanguage size={18} stroke={1.6} aria-hidden />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.RadioGroup value={current} onChange={(value) => choose(shippedLanguage(value))}>
          {ACCOUNT_LANGUAGES.map((language) => (
            <Menu.RadioItem
              key={language}
              value={language}
              closeMenuOnClick
              lang={language}
              rightSection={
                <Text size="xs" c="dimmed" aria-hidden>
                  {language.toUpperCase()}
                </Text>
              }
            >
              {AUTONYMS[language]}
            </Menu.RadioItem>
          ))}
        </Menu.RadioGroup>
      </Menu.Dropdown>
    </Menu>
  );
}
