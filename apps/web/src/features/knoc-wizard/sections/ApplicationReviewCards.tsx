import { useTranslation } from 'react-i18next';
import type { ApiKeyRecord } from '@postern/protocol';
import { allowedFromText } from '@/features/api-keys/api-key-display';
import { usesApiKey, type ApplicationType, type Vendor } from '../wizards/application-flow';
import { allowlistAccess, type ApiKeyStepValues } from './api-key-step';
import { SummaryCard } from './ReviewSection';

/** Props of {@link ApplicationReviewCards}. */
export interface ApplicationReviewCardsProps {
  application: { ApplicationType: ApplicationType; Vendor: Vendor };
  apiKey: ApiKeyStepValues;
  /** The stored keys, to name the existing one chosen. */
  existingKeys: readonly ApiKeyRecord[];
}

/** The API key choice in words: a new key and where from, the existing key's name, or the ranges. */
function apiKeyText(apiKey: ApiKeyStepValues, existingKeys: readonly ApiKeyRecord[]) {
  switch (apiKey.Option) {
    case 'new':
      return {
        key: 'knocWizardApplication.review.newKey',
        values: { name: apiKey.Name.trim(), ranges: allowedFromText(apiKey.AllowedFrom) },
      };
    case 'existing': {
      const name = existingKeys.find((key) => key.ID === apiKey.ExistingId)?.Name ?? apiKey.ExistingId;
      return { key: 'knocWizardApplication.review.existingKey', values: { name } };
    }
    case 'none':
      return {
        key: 'knocWizardApplication.review.noKey',
        values: { ranges: allowlistAccess(apiKey).AllowedIpAddresses.join(', ') },
      };
  }
}

/**
 * What the review adds for an application knoc (spec §2): its type and vendor, and for the
 * published kinds the API key or the allow-list IP restriction.
 */
export function ApplicationReviewCards({ application, apiKey, existingKeys }: ApplicationReviewCardsProps) {
  const { t } = useTranslation();
  const keyText = apiKeyText(apiKey, existingKeys);
  return (
    <>
      <SummaryCard
        title={t('knocWizardApplication.review.application')}
        rows={[
          [
            t('knocWizardApplication.settings.applicationType'),
            t(`knocWizardApplication.types.${application.ApplicationType}`),
          ],
          [t('knocWizardApplication.settings.vendor'), t(`knocWizardApplication.vendors.${application.Vendor}`)],
        ]}
      />
      {usesApiKey(application.ApplicationType) ? (
        <SummaryCard
          title={t('knocWizardApplication.review.apiKey')}
          rows={[[t('knocWizardApplication.review.apiKey'), t(keyText.key, keyText.values)]]}
        />
      ) : null}
    </>
  );
}
