import { ActionIcon, Button, Group, Text } from '@mantine/core';
import { IconChevronLeft, IconChevronRight } from '@tabler/icons-react';
import { useTranslation } from 'react-i18next';
import { pagerItems } from './table-state';

/** Props of {@link Pager}. */
export interface PagerProps {
  page: number;
  pages: number;
  onChange: (page: number) => void;
}

/** Previous, the page numbers (with ellipses above 8 pages) and next; nothing for a single page. */
export function Pager({ page, pages, onChange }: PagerProps) {
  const { t } = useTranslation();
  if (pages <= 1) return null;
  return (
    <Group component="nav" aria-label={t('table.pager.label')} gap={4} justify="center">
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={t('table.pager.previous')}
        disabled={page <= 1}
        onClick={() => onChange(page - 1)}
      >
        <IconChevronLeft size={16} aria-hidden />
      </ActionIcon>
      {pagerItems(page, pages).map((item) =>
        typeof item === 'number' ? (
          <Button
            key={item}
            size="compact-md"
            variant={item === page ? 'filled' : 'default'}
            aria-label={t('table.pager.page', { page: item })}
            aria-current={item === page ? 'page' : undefined}
            onClick={() => onChange(item)}
          >
            {item}
          </Button>
        ) : (
          <Text key={item} aria-hidden px={4}>
            …
          </Text>
        ),
      )}
      <ActionIcon
        variant="default"
        size="lg"
        aria-label={t('table.pager.next')}
        disabled={page >= pages}
        onClick={() => onChange(page + 1)}
      >
        <IconChevronRight size={16} aria-hidden />
      </ActionIcon>
    </Group>
  );
}
