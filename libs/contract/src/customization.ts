import { z } from 'zod';
import { timestamp } from './common';
import { language } from './spaces';

/*
 * A site's customization (GitBook's SiteCustomizationSettings): how its published pages look
 * (theme, colours, corners, fonts, logo, favicon), what surrounds them (header links, footer,
 * announcement) and which page furniture they show. Every field GitBook has is kept and
 * answered; published.ts says which ones the pages render.
 */

const color = z.string().regex(/^#(?:[0-9a-fA-F]{3}){1,2}$/, 'a colour such as #0b57d0');
/** A colour for each of the light and dark themes (CustomizationThemedColor). */
export const themedColor = z.object({ light: color, dark: color });
/** An address a site's customization links or shows (an uploaded image's is on the files host). */
export const customizationUrl = z.url({ protocol: /^https?$/ }).max(2048);

/** The fonts Quire serves itself, from the site's own origin (no request to another). */
export const CUSTOMIZATION_FONTS = [
  'ABCFavorit',
  'Inter',
  'Roboto',
  'RobotoSlab',
  'OpenSans',
  'SourceSansPro',
  'Lato',
  'Ubuntu',
  'Raleway',
  'Merriweather',
  'Overpass',
  'NotoSans',
  'IBMPlexSerif',
  'Poppins',
  'FiraSans',
] as const;
export const CUSTOMIZATION_MONOSPACE_FONTS = [
  'FiraCode',
  'IBMPlexMono',
  'JetBrainsMono',
  'SourceCodePro',
  'RobotoMono',
  'SpaceMono',
  'DMMono',
  'Inconsolata',
] as const;
export const customizationFont = z.enum(CUSTOMIZATION_FONTS);
export const customizationMonospaceFont = z.enum(CUSTOMIZATION_MONOSPACE_FONTS);

/** GitBook's code themes: taken and kept; pages colour code with the site's palette, none for the monochrome ones. */
const CODE_THEMES = [
  'default-light',
  'default-dark',
  'monochrome-light',
  'monochrome-dark',
  'andromeeda',
  'aurora-x',
  'ayu-dark',
  'catppuccin-frappe',
  'catppuccin-latte',
  'catppuccin-macchiato',
  'catppuccin-mocha',
  'dark-plus',
  'dracula',
  'dracula-soft',
  'everforest-dark',
  'everforest-light',
  'github-dark',
  'github-dark-default',
  'github-dark-dimmed',
  'github-dark-high-contrast',
  'github-light',
  'github-light-default',
  'github-light-high-contrast',
  'gruvbox-dark-hard',
  'gruvbox-dark-medium',
  'gruvbox-dark-soft',
  'gruvbox-light-hard',
  'gruvbox-light-medium',
  'gruvbox-light-soft',
  'houston',
  'kanagawa-dragon',
  'kanagawa-lotus',
  'kanagawa-wave',
  'laserwave',
  'light-plus',
  'material-theme',
  'material-theme-darker',
  'material-theme-lighter',
  'material-theme-ocean',
  'material-theme-palenight',
  'min-dark',
  'min-light',
  'monokai',
  'night-owl',
  'nord',
  'one-dark-pro',
  'one-light',
  'plastic',
  'poimandres',
  'red',
  'rose-pine',
  'rose-pine-dawn',
  'rose-pine-moon',
  'slack-dark',
  'slack-ochin',
  'snazzy-light',
  'solarized-dark',
  'solarized-light',
  'synthwave-84',
  'tokyo-night',
  'vesper',
  'vitesse-black',
  'vitesse-dark',
  'vitesse-light',
] as const;
const themedCodeTheme = z.object({ light: z.enum(CODE_THEMES), dark: z.enum(CODE_THEMES) });

/** Overrides of a text for other languages, by language. */
const localized = (max: number) => z.partialRecord(language, z.string().max(max));

/** Where a header or footer link leads (GitBook's ContentRef, the kinds a site's link can name). */
export const contentRef = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('url'), url: z.string().min(1).max(2048) }),
  z.object({ kind: z.literal('page'), page: z.string().min(1).max(100), space: z.string().min(1).max(100).optional() }),
  z.object({ kind: z.literal('space'), space: z.string().min(1).max(100) }),
  z.object({ kind: z.literal('anchor'), anchor: z.string().min(1).max(200), page: z.string().max(100).optional(), space: z.string().max(100).optional() }),
  z.object({ kind: z.literal('file'), file: z.string().min(1).max(100), space: z.string().max(100).optional() }),
]);

const contentLink = z.object({ title: z.string().max(64), localizedTitle: localized(64).optional(), to: contentRef });
const headerItem = z.object({
  title: z.string().min(1).max(64),
  localizedTitle: localized(64).optional(),
  style: z.enum(['link', 'button-primary', 'button-secondary']).optional(),
  to: contentRef.nullable(),
  links: z.array(contentLink).max(20),
  condition: z.string().max(1024).optional(),
});
const footerGroup = z.object({ title: z.string().min(1).max(64), localizedTitle: localized(64).optional(), links: z.array(contentLink).max(20) });
const announcement = z.object({
  enabled: z.boolean(),
  message: z.string().min(2).max(128),
  localizedMessage: localized(128).optional(),
  link: contentLink.optional(),
  style: z.enum(['info', 'warning', 'danger', 'success']),
});
/**
 * The settings, every part with its default filled in (SiteCustomizationSettingsBase), with
 * `image` as the type of a logo's or favicon's address: answers hold addresses; a request may
 * also upload the image itself (publishing's input schema).
 */
export function customizationSettingsShape<Image extends z.ZodType>(image: Image) {
  const themedImage = z.object({ light: image, dark: image });
  const favicon = z.union([z.object({ icon: themedImage }).strict(), z.object({ emoji: z.string().min(1).max(50) }).strict(), z.object({}).strict()]);
  return {
    title: z.string().min(2).max(128).optional(),
    localizedTitle: localized(128).optional(),
    styling: z.object({
      theme: z.enum(['clean', 'muted', 'bold', 'gradient']),
      primaryColor: themedColor,
      tint: z.object({ color: themedColor }).optional(),
      infoColor: themedColor,
      successColor: themedColor,
      warningColor: themedColor,
      dangerColor: themedColor,
      corners: z.enum(['straight', 'rounded', 'circular']),
      depth: z.enum(['subtle', 'flat']),
      links: z.enum(['default', 'accent']),
      font: customizationFont,
      headingFont: customizationFont.nullable().optional(),
      monospaceFont: customizationMonospaceFont,
      background: z.enum(['plain', 'match']),
      icons: z.enum(['regular', 'solid', 'duotone', 'light', 'thin']),
      codeTheme: z.object({ default: themedCodeTheme, openapi: themedCodeTheme }),
      sidebar: z.object({ background: z.enum(['default', 'filled']), list: z.enum(['default', 'pill', 'line']) }),
      search: z.enum(['prominent', 'subtle']),
    }),
    internationalization: z.object({ locale: z.enum(['en', 'fr', 'es', 'zh', 'ja', 'de', 'nl', 'no', 'pt-br', 'ru']) }),
    favicon,
    header: z.object({
      preset: z.enum(['default', 'bold', 'contrast', 'custom', 'none']),
      logo: themedImage.optional(),
      primaryLink: contentRef.optional(),
      links: z.array(headerItem).max(20),
    }),
    footer: z.object({ logo: themedImage.optional(), groups: z.array(footerGroup).max(10), copyright: z.string().max(512).optional() }),
    announcement: announcement.optional(),
    themes: z.object({ default: z.enum(['light', 'dark', 'system']), toggeable: z.boolean() }),
    feedback: z.object({ enabled: z.boolean() }),
    ai: z.object({
      mode: z.enum(['none', 'search', 'assistant']),
      greeting: z.string().max(256).optional(),
      localizedGreeting: localized(128).optional(),
      suggestions: z.array(z.string().min(3).max(64)).max(5).optional(),
    }),
    advancedCustomization: z.object({ enabled: z.boolean() }),
    pageActions: z.object({ items: z.array(z.enum(['assistant', 'external-ai', 'markdown', 'mcp', 'git', 'pdf'])).max(6) }),
    externalLinks: z.object({ target: z.enum(['self', 'blank']) }),
    pagination: z.object({ enabled: z.boolean() }),
    trademark: z.object({ enabled: z.boolean() }),
    privacyPolicy: z.object({ url: customizationUrl.optional() }),
    socialPreview: z.object({ url: customizationUrl.optional() }),
    socialAccounts: z
      .array(
        z.object({
          platform: z.enum([
            'twitter',
            'instagram',
            'facebook',
            'linkedin',
            'github',
            'discord',
            'slack',
            'youtube',
            'tiktok',
            'reddit',
            'bluesky',
            'mastodon',
            'threads',
            'medium',
          ]),
          handle: z.string().min(1).max(128),
          display: z.object({ footer: z.boolean(), header: z.boolean() }),
        }),
      )
      .max(10),
    insights: z.object({ trackingCookie: z.boolean() }),
  };
}

/** A site's customization as answered: every part, `updatedAt` once it was set. */
export const siteCustomizationSettings = z
  .object({ ...customizationSettingsShape(customizationUrl), updatedAt: timestamp.optional() })
  .meta({ id: 'SiteCustomizationSettings' });
export type SiteCustomizationSettings = z.infer<typeof siteCustomizationSettings>;

/** A site space's customization: the site's with the space's overrides applied. */
export const siteSpaceCustomizationSettings = siteCustomizationSettings.extend({ hasOverrides: z.boolean() }).meta({ id: 'SiteSpaceCustomizationSettings' });
