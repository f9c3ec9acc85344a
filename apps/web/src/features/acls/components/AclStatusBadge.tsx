import { Badge, Text, Tooltip } from '@mantine/core';
import { TOOLTIP_DELAY_MS, type AclEntry } from '@postern/protocol';
import dayjs from 'dayjs';
import { useTranslation } from 'react-i18next';
import { useNow } from '../../../lib/time/use-now';
import { translateErrorKey } from '../../../lib/api/render-error';
import { aclBadge } from '../acl-view';
import { outlined, STATUS_COLOURS } from '../status-colours';

/**
 * The ACL's badge: 'Access for {relative time}' while a grant runs, orange under 900 seconds; the
 * error of a failed grant or revoke; 'Agent offline'. Nothing otherwise.
 */
export function AclStatusBadge({ acl }: { acl: AclEntry }) {
  const { t } = useTranslation();
  const now = useNow(1_000);
  const badge = aclBadge(acl, now);

  switch (badge.kind) {
    case 'access':
      return (
        <Tooltip label={dayjs(now + badge.secondsLeft * 1000).format('LLL')} openDelay={TOOLTIP_DELAY_MS}>
          <Badge
            variant="outline"
            size="lg"
            tt="none"
            style={outlined(badge.warning ? STATUS_COLOURS.warning : STATUS_COLOURS.access)}
            data-warning={badge.warning}
          >
            {t('acl.accessFor', { relative: dayjs(now).add(badge.secondsLeft, 'second').from(now, true) })}
          </Badge>
        </Tooltip>
      );
    case 'error':
      return (
        <Text size="sm" style={{ color: STATUS_COLOURS.danger }} role="status">
          {badge.message === ''
            ? t('acl.error')
            : t('acl.errorWithMessage', { message: translateErrorKey(badge.message, t) })}
        </Text>
      );
    case 'offline':
      return (
        <Badge variant="outline" size="lg" tt="none" style={outlined(STATUS_COLOURS.neutral)}>
          {t('acl.offline')}
        </Badge>
      );
    default:
      return null;
  }
}
