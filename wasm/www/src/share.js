// Share links: the whole state as JSON, deflated with the browser's CompressionStream and
// written base64url into the URL fragment (#s=...). No server is involved.

async function pipe(bytes, stream) {
  const out = new Blob([bytes]).stream().pipeThrough(stream);
  return new Uint8Array(await new Response(out).arrayBuffer());
}

function toBase64Url(bytes) {
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const b64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The fragment (without '#') that encodes `state`. */
export async function encodeState(state) {
  const json = new TextEncoder().encode(JSON.stringify(state));
  return `s=${toBase64Url(await pipe(json, new CompressionStream('deflate-raw')))}`;
}

/** The state a fragment encodes, or null when it holds none; throws on a damaged one. */
export async function decodeState(fragment) {
  const m = /(?:^#?|&)s=([A-Za-z0-9_-]+)/.exec(fragment);
  if (!m) return null;
  const bytes = await pipe(fromBase64Url(m[1]), new DecompressionStream('deflate-raw'));
  return JSON.parse(new TextDecoder().decode(bytes));
}
