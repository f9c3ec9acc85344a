import { Box } from '@mantine/core';
import { useBannerAdminStatus, useBannerAgents } from './api';
import { chooseBanner, needsAgentList } from './banner-rules';
import { useBannerDismissals } from './dismissals';
import { AdminBanner } from './components/AdminBanner';

/**
 * The one banner slot at the top of every admin page (the admin shell renders it above the page):
 * the first banner that applies in the spec's priority order (unlicensed, agent incompatible, user
 * limit exceeded, server update) and has not been dismissed this session; nothing when none does.
 */
export function BannerArea() {
  const status = useBannerAdminStatus();
  const { dismissed, dismiss } = useBannerDismissals();
  const wantsAgents = needsAgentList(status.data, dismissed);
  const agents = useBannerAgents(wantsAgents);

  // Until the facts are in there is nothing to say; a failed status call is the page's to report.
  if (status.data === undefined) return null;
  // Wait for the agents before showing a lower-priority banner that the agent banner would replace a
  // moment later. A failed agents call counts as "no incompatible agents": the banner is advisory.
  if (wantsAgents && agents.isPending) return null;

  const banner = chooseBanner({ status: status.data, agents: agents.data ?? [] }, dismissed);
  if (banner === null) return null;
  return (
    <Box mb="md">
      <AdminBanner banner={banner} onDismiss={dismiss} />
    </Box>
  );
}
