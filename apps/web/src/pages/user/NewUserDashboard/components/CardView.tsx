import { useId } from 'react';
import { SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useTranslation } from 'react-i18next';
import type { DashboardSection } from '../../../../features/acls/dashboard-sections';
import type { AclRowProps } from './acl-row-props';
import { AclCard } from './AclCard';

/** Props of {@link CardView}. */
export interface CardViewProps extends Omit<AclRowProps, 'acl' | 'favourite'> {
  sections: readonly DashboardSection[];
  favourites: ReadonlySet<string>;
  /** The heading of a category section ('Other' for the default one). */
  categoryLabel: (category: string) => string;
}

function SectionBlock({
  title,
  section,
  favourites,
  ...row
}: { title: string; section: DashboardSection } & Omit<CardViewProps, 'sections' | 'categoryLabel'>) {
  const { t } = useTranslation();
  const headingId = useId();
  return (
    <Stack component="section" aria-labelledby={headingId} gap="sm">
      <Title order={2} fz="h4" id={headingId}>
        {title}
      </Title>
      {section.acls.length === 0 ? (
        <Text c="dimmed" size="sm">
          {t('home.sections.topEmpty')}
        </Text>
      ) : (
        <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
          {section.acls.map((acl) => (
            <AclCard key={acl.ACLID} acl={acl} favourite={favourites.has(acl.ACLID)} {...row} />
          ))}
        </SimpleGrid>
      )}
    </Stack>
  );
}

/** The card view: one titled region per section (Favourites, Top, each category). */
export function CardView({ sections, categoryLabel, ...rest }: CardViewProps) {
  const { t } = useTranslation();
  const titleOf = (section: DashboardSection) =>
    section.kind === 'favourites'
      ? t('home.sections.favourites')
      : section.kind === 'top'
        ? t('home.sections.top')
        : categoryLabel(section.category);
  return (
    <Stack gap="xl">
      {sections.map((section) => (
        <SectionBlock key={section.key} title={titleOf(section)} section={section} {...rest} />
      ))}
    </Stack>
  );
}
