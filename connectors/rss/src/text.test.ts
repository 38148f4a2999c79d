import { describe, expect, it } from 'vitest';
import { decodeEntities, decodeNumericReferences } from './entities.js';
import { htmlToText, xmlText } from './text.js';

describe('decodeEntities', () => {
  it('decodes named, decimal and hex references', () => {
    expect(
      decodeEntities('&lt;p&gt; &amp; &quot;&apos; &nbsp;&eacute;&Uuml;&yuml; &mdash;&hellip;&euro;'),
    ).toBe('<p> & "\' \u00a0éÜÿ —…€');
    expect(decodeEntities('&#233;&#xE9;&#X1F600;')).toBe('éé😀');
  });

  it('leaves unknown names and bare ampersands as written, and never throws on a bad code point', () => {
    expect(decodeEntities('&bogus; AT&T &amp')).toBe('&bogus; AT&T &amp');
    expect(decodeEntities('&#0;&#xD800;&#1114112;')).toBe('\ufffd\ufffd\ufffd');
  });

  it('decodes once: an escaped reference stays a reference', () => {
    expect(decodeEntities('&amp;lt;')).toBe('&lt;');
    expect(decodeNumericReferences('&#233; &amp; &eacute;')).toBe('é &amp; &eacute;');
  });
});

describe('xmlText', () => {
  it('keeps CDATA as written and decodes what is around it', () => {
    expect(xmlText('a &amp; <![CDATA[<b>&amp;</b>]]> z&#33;')).toBe('a & <b>&amp;</b> z!');
  });
});

describe('htmlToText', () => {
  it('keeps paragraphs, line breaks and list items, and drops the markup', () => {
    expect(
      htmlToText(`<h1>Title</h1>
        <p>One   <a href="x">link</a>,
        two.</p><p>Three<br>four<br/>five</p>
        <ol><li>first</li><li>second</li></ol><div><div>nested</div></div>`),
    ).toBe('Title\n\nOne link, two.\n\nThree\nfour\nfive\n\n- first\n- second\n\nnested');
  });

  it('drops scripts, styles and comments, and what they contain', () => {
    expect(
      htmlToText('<style>p{}</style><p>kept</p><script>alert("<p>no</p>")</script><!-- <p>no</p> -->'),
    ).toBe('kept');
  });

  it('decodes references and reads non-breaking spaces as spaces', () => {
    expect(htmlToText('<p>Tea&nbsp;&amp;&nbsp;cake &mdash; 5&nbsp;&euro;</p>')).toBe('Tea & cake — 5 €');
  });

  it('leaves "<" that starts no tag alone', () => {
    expect(htmlToText('1 < 2 and 3 > 2, a <3')).toBe('1 < 2 and 3 > 2, a <3');
    expect(htmlToText('x &lt;b&gt; y')).toBe('x <b> y');
  });

  it('separates table cells', () => {
    expect(htmlToText('<table><tr><td>a</td><td>b</td></tr><tr><th>c</th></tr></table>')).toBe('a b\n\nc');
  });
});
