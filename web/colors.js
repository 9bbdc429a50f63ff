// Colour scales of the result tables. Attention weights (always 0..1) use a fixed sequential
// scale close to cividis, readable with every common colour-vision deficiency; signed
// matrices use two hues (blue below 0, orange above) around a near-white 0, scaled by the
// largest magnitude in the matrix. Text on a cell is black or white, whichever contrasts more
// (at least 4.5:1 on every colour of both scales).

// Cividis (Nuñez, Anderton, Renslow 2018), sampled at 0, 1/8, …, 1.
const CIVIDIS = [
  [0x00, 0x22, 0x4e], [0x12, 0x35, 0x70], [0x3b, 0x49, 0x6c], [0x57, 0x5d, 0x6d],
  [0x70, 0x71, 0x73], [0x8a, 0x86, 0x78], [0xa5, 0x9c, 0x74], [0xc3, 0xb3, 0x69],
  [0xfe, 0xe8, 0x38],
];
const NEGATIVE = [0x21, 0x66, 0xac];
const ZERO = [0xf7, 0xf7, 0xf7];
const POSITIVE = [0xb3, 0x58, 0x06];

function mix(a, b, t) {
  return a.map((x, i) => Math.round(x + (b[i] - x) * t));
}

function hex(rgb) {
  return `#${rgb.map((x) => x.toString(16).padStart(2, '0')).join('')}`;
}

function luminance(rgb) {
  const [r, g, b] = rgb.map((x) => {
    const c = x / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function withText(rgb) {
  const l = luminance(rgb);
  const onWhite = 1.05 / (l + 0.05);
  const onBlack = (l + 0.05) / 0.05;
  return { background: hex(rgb), color: onBlack >= onWhite ? '#000000' : '#ffffff' };
}

// The colours of weight `x` in 0..1 (clamped).
export function sequential(x) {
  const t = Math.min(1, Math.max(0, x)) * (CIVIDIS.length - 1);
  const i = Math.min(CIVIDIS.length - 2, Math.floor(t));
  return withText(mix(CIVIDIS[i], CIVIDIS[i + 1], t - i));
}

// The colours of `x` on a scale whose ends are ±`extent` (extent 0: everything is 0).
export function diverging(x, extent) {
  if (!(extent > 0)) return withText(ZERO);
  const t = Math.min(1, Math.abs(x) / extent);
  return withText(mix(ZERO, x < 0 ? NEGATIVE : POSITIVE, t));
}

// A CSS gradient of the sequential scale, for its legend.
export function sequentialGradient() {
  const stops = CIVIDIS.map((rgb, i) => `${hex(rgb)} ${(100 * i) / (CIVIDIS.length - 1)}%`);
  return `linear-gradient(to right, ${stops.join(', ')})`;
}

export function divergingGradient() {
  return `linear-gradient(to right, ${hex(NEGATIVE)}, ${hex(ZERO)}, ${hex(POSITIVE)})`;
}
