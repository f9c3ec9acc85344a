import { ActionIcon, Menu, useMantineColorScheme } from '@mantine/core';
import { IconDeviceDesktop, IconMoon, IconSun } from '@tabler/icons-react';
import { COLOR_SCHEMES } from '@postern/protocol';
import { useTranslation } from 'react-i18next';

const ICONS = { light: IconSun, dark: IconMoon, auto: IconDeviceDesktop } as const;

function isColorScheme(value: string): value is (typeof COLOR_SCHEMES)[number] {
  return (COLOR_SCHEMES as readonly string[]).includes(value);
}

/** A menu to pick light, dark or automatic (system) colours for the current area. */
export function ColorSchemeToggle() {
  const { t } = useTranslation();
  const { colorScheme, setColorScheme } = useMantineColorScheme();
  const CurrentIcon = ICONS[colorScheme];

  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <ActionIcon variant="default" size="lg" aria-label={t('colorScheme.change')}>
          <CurrentIcon size={18} stroke={1.6} aria-hidden />
        </ActionIcon>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.RadioGroup value={colorScheme} onChange={(value) => isColorScheme(value) && setColorScheme(value)}>
          {COLOR_SCHEMES.map((scheme) => {
            const Icon = ICONS[scheme];
            return (
              <Menu.RadioItem
                key={scheme}
                value={scheme}
                closeMenuOnClick
                rightSection={<Icon size={16} stroke={1.6} aria-hidden />}
              >
                {t(`colorScheme.${scheme}`)}
              </Menu.RadioItem>
            );
          })}
        </Menu.RadioGroup>
      </Menu.Dropdown>
    </Menu>
  );
}
