import { describe, expect, it } from 'vitest';
import { stealthArgs, stealthUserAgent } from './stealth.js';

describe('stealthUserAgent', () => {
  it('says Chrome, not HeadlessChrome, with the reduced version', () => {
    const ua = stealthUserAgent('156.0.8078.79', 'linux');
    expect(ua).toBe(
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.0.0 Safari/537.36',
    );
    expect(ua).not.toContain('Headless');
  });

  it('uses the platform token of the host', () => {
    expect(stealthUserAgent('131.0.1.2', 'darwin')).toContain('(Macintosh; Intel Mac OS X 10_15_7)');
    expect(stealthUserAgent('131.0.1.2', 'win32')).toContain('(Windows NT 10.0; Win64; x64)');
  });
});

describe('stealthArgs', () => {
  it('hides the automation flag, sets languages and keeps the caller switches last', () => {
    expect(stealthArgs({})).toEqual([
      '--disable-blink-features=AutomationControlled',
      '--accept-lang=en-US,en',
    ]);
    expect(stealthArgs({ languages: ['de-DE', 'de'], args: ['--window-size=800,600'] })).toEqual([
      '--disable-blink-features=AutomationControlled',
      '--accept-lang=de-DE,de',
      '--window-size=800,600',
    ]);
  });
});
