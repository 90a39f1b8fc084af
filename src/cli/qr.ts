import type { Style } from './render.js';

/**
 * How the QR code is made: error correction M (the usual choice for screens; an address still fits
 * version 3, 29 modules), and the four-module quiet zone the standard asks for, so a scanner finds
 * the code even beside other text.
 */
export const QR_OPTIONS = { errorCorrectionLevel: 'M', margin: 4 } as const;

/**
 * A QR code of `text` ready to print: Unicode half blocks (`▀`, `▄`, `█`, space), two modules per
 * character cell, so the code stays square and small, with its quiet zone, ending with a newline.
 * Each line goes through `style.qr`, which (colours on) paints it dark on a light ground: the code
 * then scans on dark and light terminals alike. Without colour, dark modules are the terminal's
 * text colour: right on a light terminal, inverted (still read by phone cameras) on a dark one.
 * `qrcode` is loaded on first use only.
 *
 * @example
 * io.stdout.write(await renderQr('yRd4FhXfVGHXpsuZXPNkMrfD9GVj46pnjt', style));
 */
export async function renderQr(text: string, style?: Pick<Style, 'qr'>): Promise<string> {
  const { toString } = await import('qrcode');
  const picture = await toString(text, { type: 'utf8', ...QR_OPTIONS });
  const paint = style ? (line: string) => style.qr(line) : (line: string) => line;
  return picture.split('\n').map(paint).join('\n') + '\n';
}
