import { Anchor, Box, Center, Stack, Text, TextInput } from '@mantine/core';
import { QRCodeSVG } from 'qrcode.react';
import { useTranslation } from 'react-i18next';
import type { OtpSecret } from '@postern/protocol';
import { CopyIconButton } from '@/components/CopyIconButton';

/** Edge of the QR code in CSS pixels, quiet zone included: large enough for any phone camera. */
export const QR_CODE_SIZE = 232;

/** The QR specification's quiet zone, in modules. */
const QUIET_ZONE_MODULES = 4;

/** Copies the secret; says "Copied" for the spec's 750 ms, with a tooltip after 200 ms of hovering. */
function CopySecretButton({ value }: { value: string }) {
  const { t } = useTranslation();
  return (
    <CopyIconButton value={value} label={t('twoFactor.copySecret')} copiedLabel={t('twoFactor.copied')} iconSize={18} />
  );
}

/**
 * A new authenticator secret: the otpauth URL as a QR code (always black on white with its quiet
 * zone, also in dark mode, so cameras read it), a link that opens an authenticator app on this
 * device, and the secret as read-only text with a copy button, for typing in by hand.
 */
export function EnrolmentSecret({ secret }: { secret: OtpSecret }) {
  const { t } = useTranslation();

  return (
    <Stack gap="sm">
      <Text>{t('twoFactor.scanStep')}</Text>
      <Center>
        <Box bg="#ffffff" style={{ lineHeight: 0 }}>
          <QRCodeSVG
            value={secret.URL}
            size={QR_CODE_SIZE}
            marginSize={QUIET_ZONE_MODULES}
            level="M"
            bgColor="#ffffff"
            fgColor="#000000"
            role="img"
            aria-label={t('twoFactor.qrLabel')}
          />
        </Box>
      </Center>
      <Center>
        <Anchor href={secret.URL} size="sm">
          {t('twoFactor.openInApp')}
        </Anchor>
      </Center>
      <TextInput
        label={t('twoFactor.secretLabel')}
        description={t('twoFactor.secretStep')}
        value={secret.Secret}
        readOnly
        spellCheck={false}
        styles={{ input: { fontFamily: 'var(--mantine-font-family-monospace)' } }}
        rightSection={<CopySecretButton value={secret.Secret} />}
        onFocus={(event) => event.currentTarget.select()}
      />
      <Text>{t('twoFactor.codeStep')}</Text>
    </Stack>
  );
}
