import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CUSTOMIZATION_FONTS, CUSTOMIZATION_MONOSPACE_FONTS } from '@quire/contract';
import type { CustomizationSettings } from '../domain/customization';
import { DARK } from './html';

/*
 * How a site's customization shows on its pages: the theme stylesheet (colours for light and
 * dark, corners, fonts) at an address that changes with it, and the fonts themselves, served by
 * the site from the packages they come in (no request to another origin). The frame's HTML
 * (html.ts) reads the rest — logo, favicon, header and footer links, the announcement —
 * from the Look pages.ts makes.
 */

type Font = (typeof CUSTOMIZATION_FONTS)[number] | (typeof CUSTOMIZATION_MONOSPACE_FONTS)[number];

/**
 * Each font's package (@fontsource/…, files named `<package>-latin-<weight>-normal.woff2`) and
 * its CSS family. ABCFavorit is GitBook's own typeface, which no package carries: it shows as Inter.
 */
const FONTS: Record<Font, { pkg: string; family: string; generic: 'sans-serif' | 'serif' | 'monospace' }> = {
  ABCFavorit: { pkg: 'inter', family: 'Inter', generic: 'sans-serif' },
  Inter: { pkg: 'inter', family: 'Inter', generic: 'sans-serif' },
  Roboto: { pkg: 'roboto', family: 'Roboto', generic: 'sans-serif' },
  RobotoSlab: { pkg: 'roboto-slab', family: 'Roboto Slab', generic: 'serif' },
  OpenSans: { pkg: 'open-sans', family: 'Open Sans', generic: 'sans-serif' },
  SourceSansPro: { pkg: 'source-sans-3', family: 'Source Sans 3', generic: 'sans-serif' },
  Lato: { pkg: 'lato', family: 'Lato', generic: 'sans-serif' },
  Ubuntu: { pkg: 'ubuntu', family: 'Ubuntu', generic: 'sans-serif' },
  Raleway: { pkg: 'raleway', family: 'Raleway', generic: 'sans-serif' },
  Merriweather: { pkg: 'merriweather', family: 'Merriweather', generic: 'serif' },
  Overpass: { pkg: 'overpass', family: 'Overpass', generic: 'sans-serif' },
  NotoSans: { pkg: 'noto-sans', family: 'Noto Sans', generic: 'sans-serif' },
  IBMPlexSerif: { pkg: 'ibm-plex-serif', family: 'IBM Plex Serif', generic: 'serif' },
  Poppins: { pkg: 'poppins', family: 'Poppins', generic: 'sans-serif' },
  FiraSans: { pkg: 'fira-sans', family: 'Fira Sans', generic: 'sans-serif' },
  FiraCode: { pkg: 'fira-code', family: 'Fira Code', generic: 'monospace' },
  IBMPlexMono: { pkg: 'ibm-plex-mono', family: 'IBM Plex Mono', generic: 'monospace' },
  JetBrainsMono: { pkg: 'jetbrains-mono', family: 'JetBrains Mono', generic: 'monospace' },
  SourceCodePro: { pkg: 'source-code-pro', family: 'Source Code Pro', generic: 'monospace' },
  RobotoMono: { pkg: 'roboto-mono', family: 'Roboto Mono', generic: 'monospace' },
  SpaceMono: { pkg: 'space-mono', family: 'Space Mono', generic: 'monospace' },
  DMMono: { pkg: 'dm-mono', family: 'DM Mono', generic: 'monospace' },
  Inconsolata: { pkg: 'inconsolata', family: 'Inconsolata', generic: 'monospace' },
};

const PACKAGES = new Set(Object.values(FONTS).map((font) => font.pkg));
/** The regular and bold faces pages use (a package without a bold face gives its heaviest below it). */
const WEIGHTS = [400, 500, 600, 700];
const FONT_FILE = /^([a-z0-9-]+)-latin-(\d{3})-normal\.woff2$/;

/** The file of a font `~/fonts/<name>` names, if it is one of ours; undefined otherwise. */
export function fontFile(name: string): string | undefined {
  const match = FONT_FILE.exec(name);
  if (!match || !PACKAGES.has(match[1])) return undefined;
  let dir: string;
  try {
    dir = path.dirname(require.resolve(`@fontsource/${match[1]}/package.json`));
  } catch {
    return undefined;
  }
  const file = path.join(dir, 'files', name);
  return existsSync(file) ? file : undefined;
}

const faces = new Map<string, number[]>();
/** The weights of WEIGHTS a font's package has. */
function weightsOf(pkg: string): number[] {
  let found = faces.get(pkg);
  if (!found) {
    found = WEIGHTS.filter((weight) => fontFile(`${pkg}-latin-${weight}-normal.woff2`));
    faces.set(pkg, found);
  }
  return found;
}

function fontFaces(font: Font, fontsPath: string): string {
  const { pkg, family } = FONTS[font];
  return weightsOf(pkg)
    .map(
      (weight) =>
        `@font-face{font-family:"${family}";font-style:normal;font-weight:${weight};font-display:swap;src:url(${fontsPath}${pkg}-latin-${weight}-normal.woff2) format("woff2")}`,
    )
    .join('\n');
}

const stack = (font: Font) => `"${FONTS[font].family}",${FONTS[font].generic === 'monospace' ? 'ui-monospace,monospace' : `system-ui,${FONTS[font].generic}`}`;
const RADIUS = { straight: '0', rounded: '6px', circular: '14px' } as const;

/** Custom properties for one theme. */
function themeVariables(settings: CustomizationSettings, theme: 'light' | 'dark'): string {
  const { styling } = settings;
  const tint = styling.tint?.color[theme];
  return [
    `--accent:${styling.primaryColor[theme]}`,
    `--info:${styling.infoColor[theme]}`,
    `--success:${styling.successColor[theme]}`,
    `--warning:${styling.warningColor[theme]}`,
    `--danger:${styling.dangerColor[theme]}`,
    ...(tint ? [`--tint-bg:color-mix(in srgb,${tint} 12%,var(--bg))`] : []),
  ].join(';');
}

/** The theme stylesheet of a site's (or a site space's) customization. `fontsPath`: the site's `~/fonts/`. */
export function themeCss(settings: CustomizationSettings, fontsPath: string): string {
  const { styling } = settings;
  const heading = styling.headingFont ?? styling.font;
  const fonts = [...new Set<Font>([styling.font, heading, styling.monospaceFont])];
  const shared = [
    `--radius:${RADIUS[styling.corners]}`,
    `--font-body:${stack(styling.font)}`,
    `--font-heading:${stack(heading)}`,
    `--font-mono:${stack(styling.monospaceFont)}`,
    `--link-color:${styling.links === 'accent' ? 'var(--fg)' : 'var(--accent)'}`,
    `--shadow:${styling.depth === 'flat' ? 'none' : '0 1px 3px rgb(0 0 0 / 12%)'}`,
  ].join(';');
  const dark = themeVariables(settings, 'dark');
  return [
    ...fonts.map((font) => fontFaces(font, fontsPath)),
    `:root{${shared};${themeVariables(settings, 'light')}}`,
    `${DARK.chosen}{${dark}}`,
    `@media (prefers-color-scheme:dark){${DARK.system}{${dark}}}`,
    ...(styling.codeTheme.default.light.startsWith('monochrome')
      ? [`:root:not([data-theme=dark]) .body pre [class^=hljs-]{color:inherit;font-style:inherit}`]
      : []),
    ...(styling.codeTheme.default.dark.startsWith('monochrome') ? [`${DARK.chosen} .body pre [class^=hljs-]{color:inherit;font-style:inherit}`] : []),
    styling.sidebar.background === 'filled' ? '.sidebar{background:var(--soft);border-radius:var(--radius);padding:12px}' : '',
    styling.sidebar.list === 'pill'
      ? '.sidebar a[aria-current=page]{background:color-mix(in srgb,var(--accent) 14%,transparent);border-radius:999px;padding:2px 10px}'
      : '',
    styling.sidebar.list === 'line'
      ? '.sidebar nav.pages li{border-left:2px solid var(--line);padding-left:8px}.sidebar a[aria-current=page]{color:var(--accent)}'
      : '',
  ]
    .filter(Boolean)
    .join('\n');
}

const digests = new WeakMap<CustomizationSettings, string>();
/** A short digest of the settings: part of the theme stylesheet's address, so a change is fetched at once and an unchanged one never. */
export function settingsDigest(settings: CustomizationSettings): string {
  let digest = digests.get(settings);
  if (!digest) {
    digest = createHash('sha256').update(JSON.stringify(settings)).digest('base64url').slice(0, 16);
    digests.set(settings, digest);
  }
  return digest;
}

type SocialAccount = CustomizationSettings['socialAccounts'][number];

/** Each platform's name and its profile address for a handle (GitBook's handles come without their `@`). */
const SOCIAL: Record<SocialAccount['platform'], { label: string; href: (handle: string) => string }> = {
  twitter: { label: 'X', href: (handle) => `https://x.com/${handle}` },
  instagram: { label: 'Instagram', href: (handle) => `https://www.instagram.com/${handle}` },
  facebook: { label: 'Facebook', href: (handle) => `https://www.facebook.com/${handle}` },
  linkedin: { label: 'LinkedIn', href: (handle) => `https://www.linkedin.com/${handle.includes('/') ? handle : `company/${handle}`}` },
  github: { label: 'GitHub', href: (handle) => `https://github.com/${handle}` },
  discord: { label: 'Discord', href: (handle) => `https://discord.gg/${handle}` },
  slack: { label: 'Slack', href: (handle) => `https://${handle}.slack.com` },
  youtube: { label: 'YouTube', href: (handle) => `https://www.youtube.com/@${handle}` },
  tiktok: { label: 'TikTok', href: (handle) => `https://www.tiktok.com/@${handle}` },
  reddit: { label: 'Reddit', href: (handle) => `https://www.reddit.com/${handle.includes('/') ? handle : `r/${handle}`}` },
  bluesky: { label: 'Bluesky', href: (handle) => `https://bsky.app/profile/${handle}` },
  // `user@instance`: the profile is on the user's instance.
  mastodon: {
    label: 'Mastodon',
    href: (handle) => {
      const [user, instance] = handle.split('@');
      return instance ? `https://${instance}/@${user}` : `https://mastodon.social/@${handle}`;
    },
  },
  threads: { label: 'Threads', href: (handle) => `https://www.threads.net/@${handle}` },
  medium: { label: 'Medium', href: (handle) => `https://medium.com/@${handle}` },
};

/** A social account as a link: its platform's name and its profile's address (a handle that is an https address already is kept). */
export function socialLink(account: SocialAccount): { label: string; href: string } {
  const platform = SOCIAL[account.platform];
  const handle = account.handle.trim().replace(/^@/, '');
  if (/^https:\/\//i.test(handle)) return { label: platform.label, href: handle };
  return { label: platform.label, href: platform.href(handle.split('/').map(encodeURIComponent).join('/').replace(/%40/g, '@')) };
}
