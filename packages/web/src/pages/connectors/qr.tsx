import { useMemo } from 'preact/hooks';
import { encode } from 'uqr';

/**
 * A QR code drawn as inline SVG: one path of dark modules on a light square, whatever the page's
 * colours (a phone's camera needs the contrast), and nothing for the CSP to refuse.
 */
export function QrCode({ value, label }: { value: string; label: string }) {
  const { size, path } = useMemo(() => {
    const qr = encode(value, { ecc: 'M', border: 4 });
    const modules: string[] = [];
    qr.data.forEach((row, y) => {
      row.forEach((dark, x) => {
        if (dark) modules.push(`M${x} ${y}h1v1h-1z`);
      });
    });
    return { size: qr.size, path: modules.join('') };
  }, [value]);
  return (
    <svg
      class="qr"
      viewBox={`0 0 ${size} ${size}`}
      role="img"
      aria-label={label}
      shape-rendering="crispEdges"
    >
      <rect width={size} height={size} fill="#ffffff" />
      <path d={path} fill="#000000" />
    </svg>
  );
}
