/** One tracked thing on the demo page: its entity type and id are what tracking_events records. */
export interface DemoEntity {
  readonly type: 'hero' | 'slide' | 'banner';
  readonly id: number;
  readonly title: string;
  readonly text: string;
}

export const HERO: DemoEntity = { type: 'hero', id: 1, title: 'Summer sale', text: 'Up to 40% off outdoor furniture' };
export const SLIDES: readonly DemoEntity[] = [
  { type: 'slide', id: 101, title: 'New in: garden lights', text: 'Solar, no wiring' },
  { type: 'slide', id: 102, title: 'Hammocks', text: 'Two people, one hammock' },
  { type: 'slide', id: 103, title: 'Parasols', text: 'Shade in every size' },
];
export const BANNERS: readonly DemoEntity[] = [
  { type: 'banner', id: 201, title: 'Free delivery', text: 'On orders over 50 EUR' },
  { type: 'banner', id: 202, title: 'Gift cards', text: 'The present that always fits' },
];

const escape = (text: string): string => text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);

/** A link marked for the beacon: it counts an impression once half of it has been seen for a second, and every click. */
const tracked = (entity: DemoEntity, className: string): string =>
  `<a class="${className}" href="/?from=${entity.type}-${entity.id}" data-shop-entity-type="${entity.type}" data-shop-entity-id="${entity.id}">
    <strong>${escape(entity.title)}</strong><span>${escape(entity.text)}</span>
  </a>`;

/** The demo page: a hero, a carousel of slides and banners below the fold, with the beacon loaded. */
export function demoPage(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Example storefront</title>
<style>
  body { margin: 0; font: 16px/1.4 system-ui, sans-serif; color: #222; }
  header, main { max-width: 960px; margin: 0 auto; padding: 16px; }
  a[data-shop-entity-type] { display: flex; flex-direction: column; justify-content: center; gap: 4px; padding: 24px;
    border-radius: 8px; color: inherit; text-decoration: none; box-sizing: border-box; }
  .hero { height: 320px; background: #fde7c8; font-size: 1.5em; }
  .slides { display: flex; gap: 16px; overflow-x: auto; scroll-snap-type: x mandatory; margin: 24px 0; }
  .slide { flex: 0 0 100%; height: 200px; background: #d8ecf6; scroll-snap-align: start; }
  .fold { height: 900px; display: flex; align-items: flex-end; color: #777; }
  .banner { height: 160px; margin: 16px 0; background: #e3f1dc; }
</style>
</head>
<body>
<header><h1>Example storefront</h1></header>
<main>
  ${tracked(HERO, 'hero')}
  <div class="slides">
    ${SLIDES.map((slide) => tracked(slide, 'slide')).join('\n    ')}
  </div>
  <p class="fold">Scroll on: the banners below count once you have seen half of one for a second.</p>
  ${BANNERS.map((banner) => tracked(banner, 'banner')).join('\n  ')}
</main>
<script type="module">
  import { startBeacon } from '/beacon.js';
  window.shopBeacon = startBeacon({ endpoint: '/api/track' });
</script>
</body>
</html>
`;
}
