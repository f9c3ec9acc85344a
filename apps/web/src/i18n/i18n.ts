import i18n from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import dayjs from 'dayjs';
import relativeTime from 'dayjs/plugin/relativeTime';
import localizedFormat from 'dayjs/plugin/localizedFormat';
import 'dayjs/locale/de';
import 'dayjs/locale/en-au';
import { en } from './locales/en';
import { de } from './locales/de';

/** The languages the app ships texts for; en-AU and everything else fall back to English. */
export const resources = { en: { translation: en }, de: { translation: de } } as const;

/** localStorage key remembering the chosen language. */
const LANGUAGE_STORAGE_KEY = 'postern.language';

dayjs.extend(relativeTime);
dayjs.extend(localizedFormat);

/** The dayjs locale matching an i18next language: German for de-*, Australian English otherwise. */
export function dayjsLocaleFor(language: string): 'de' | 'en-au' {
  return language.toLowerCase().startsWith('de') ? 'de' : 'en-au';
}

// Registered before init so the first language choice also sets dayjs and <html lang>.
i18n.on('languageChanged', (language) => {
  dayjs.locale(dayjsLocaleFor(language));
  document.documentElement.lang = language;
});

void i18n
  .use(LanguageDetector)
  .use(initReactI18next)
  .init({
    resources,
    // The spec's default locale is en-AU; it has no texts of its own, so it resolves to en.
    fallbackLng: ['en-AU', 'en'],
    supportedLngs: ['en', 'en-AU', 'de'],
    nonExplicitSupportedLngs: true,
    detection: {
      order: ['querystring', 'localStorage', 'navigator'],
      lookupQuerystring: 'lng',
      lookupLocalStorage: LANGUAGE_STORAGE_KEY,
      caches: ['localStorage'],
    },
    // React escapes text itself; escaping here would show &amp; and friends.
    interpolation: { escapeValue: false },
    // The resources are bundled, so the first render can already use them.
    initAsync: false,
  });

export default i18n;
