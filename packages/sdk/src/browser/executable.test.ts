import { describe, expect, it } from 'vitest';
import {
  ChromiumNotFoundError,
  chromiumPath,
  DEFAULT_CHROMIUM_PATH,
  parseChromiumVersion,
  resolveChromiumPath,
} from './executable.js';
import { launchBrowser } from './launch.js';

describe('chromiumPath', () => {
  it('takes the option, then SVC_CHROMIUM_PATH, then /usr/bin/chromium', () => {
    expect(chromiumPath('/opt/chrome', { SVC_CHROMIUM_PATH: '/env/chromium' })).toBe('/opt/chrome');
    expect(chromiumPath(undefined, { SVC_CHROMIUM_PATH: '/env/chromium' })).toBe('/env/chromium');
    expect(chromiumPath(undefined, {})).toBe(DEFAULT_CHROMIUM_PATH);
    expect(chromiumPath('', { SVC_CHROMIUM_PATH: '' })).toBe(DEFAULT_CHROMIUM_PATH);
  });
});

describe('resolveChromiumPath', () => {
  it('names the missing path and how to install Chromium', async () => {
    const error = await resolveChromiumPath('/nowhere/chromium', {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ChromiumNotFoundError);
    expect((error as ChromiumNotFoundError).path).toBe('/nowhere/chromium');
    expect((error as Error).message).toContain('/nowhere/chromium');
    expect((error as Error).message).toContain('apt-get install chromium');
    expect((error as Error).message).toContain('SVC_CHROMIUM_PATH');
  });

  it('rejects a file that is not executable', async () => {
    await expect(resolveChromiumPath(import.meta.filename, {})).rejects.toBeInstanceOf(ChromiumNotFoundError);
  });

  it('accepts an executable', async () => {
    await expect(resolveChromiumPath(process.execPath, {})).resolves.toBe(process.execPath);
  });
});

describe('launchBrowser', () => {
  it('fails with the install hint before playwright gets to suggest a download', async () => {
    await expect(launchBrowser({ executablePath: '/nowhere/chromium' })).rejects.toThrow(
      /apt-get install chromium/,
    );
  });
});

describe('parseChromiumVersion', () => {
  it('reads the output of Debian Chromium and of Google Chrome', () => {
    expect(parseChromiumVersion('Chromium 156.0.8078.79 built on Debian GNU/Linux 12 (bookworm)\n')).toBe(
      '156.0.8078.79',
    );
    expect(parseChromiumVersion('Google Chrome 131.0.6778.85 \n')).toBe('131.0.6778.85');
    expect(parseChromiumVersion('usage: chromium [options]')).toBeUndefined();
  });
});
