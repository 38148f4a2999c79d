/** Feed documents as sites publish them, quirks included. */

/** RSS 2.0 with the usual modules: content:encoded, dc:creator, an enclosure, three date styles. */
export const RSS_2 = `<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:atom="http://www.w3.org/2005/Atom">
  <channel>
    <title>Tide &amp; Time</title>
    <link>https://tide.example/</link>
    <atom:link href="https://tide.example/feed.xml" rel="self" type="application/rss+xml"/>
    <description>Notes from the harbour</description>
    <lastBuildDate>Mon, 23 Nov 2026 09:30:00 GMT</lastBuildDate>
    <item>
      <title><![CDATA[Spring tides & <em>neap</em> tides]]></title>
      <link>https://tide.example/posts/spring-tides</link>
      <guid isPermaLink="false">tide-0042</guid>
      <dc:creator>Ada Quay</dc:creator>
      <pubDate>Mon, 23 Nov 2026 09:00:00 GMT</pubDate>
      <category>Tides</category>
      <category>Moon</category>
      <description>A short summary.</description>
      <content:encoded><![CDATA[<p>When the sun and moon line up, tides run <strong>higher</strong>.</p>
<ul><li>Spring: big range</li><li>Neap:&nbsp;small range</li></ul>
<p>See the <a href="/tables">tables</a> &mdash; and plan ahead&hellip;</p>
<script>track()</script>]]></content:encoded>
    </item>
    <item>
      <title>Caf&#233; at the pier</title>
      <link>/posts/cafe</link>
      <guid>https://tide.example/posts/cafe</guid>
      <author>editor@tide.example (Bo Pier)</author>
      <pubDate>Sun, 22 Nov 2026 18:15:00 +0200</pubDate>
      <description>&lt;p&gt;Open from 8&amp;nbsp;am. Tea &amp;amp; cake.&lt;/p&gt;&lt;p&gt;Second line&lt;br/&gt;third line&lt;/p&gt;</description>
    </item>
    <item>
      <title>Harbour podcast, episode 7</title>
      <guid isPermaLink="true">https://tide.example/podcast/7</guid>
      <pubDate>Fri, 20 Nov 26 07:05 EST</pubDate>
      <description>Listen in.</description>
      <enclosure url="https://cdn.tide.example/7.mp3" length="12345678" type="audio/mpeg"/>
    </item>
  </channel>
</rss>
`;

/** Atom 1.0: HTML, XHTML and text content, an inherited author, xml:base, an edited entry. */
export const ATOM = `<?xml version="1.0" encoding="utf-8"?>
<feed xmlns="http://www.w3.org/2005/Atom" xml:base="https://blog.example/">
  <title type="text">Field Notes</title>
  <link rel="self" href="https://blog.example/atom.xml"/>
  <link rel="alternate" type="text/html" href="https://blog.example/"/>
  <id>urn:uuid:60a76c80-d399-11d9-b93C-0003939e0af6</id>
  <updated>2026-11-23T08:00:00Z</updated>
  <author><name>Cy Field</name></author>
  <entry>
    <title type="html">Mushrooms &amp;amp; moss</title>
    <link rel="alternate" type="text/html" href="posts/mushrooms"/>
    <link rel="enclosure" type="image/jpeg" length="2048" href="img/moss.jpg"/>
    <id>tag:blog.example,2026:mushrooms</id>
    <published>2026-11-22T10:00:00+01:00</published>
    <updated>2026-11-23T08:00:00Z</updated>
    <category term="fungi" label="Fungi"/>
    <category term="moss"/>
    <summary>Short version.</summary>
    <content type="html">&lt;h2&gt;Found today&lt;/h2&gt;&lt;p&gt;Three &lt;b&gt;chanterelles&lt;/b&gt; &amp;amp; a puffball.&lt;/p&gt;</content>
  </entry>
  <entry>
    <title>Birds &lt;3</title>
    <link href="https://blog.example/posts/birds"/>
    <link rel="replies" type="application/atom+xml" href="posts/birds/comments.xml"/>
    <id>tag:blog.example,2026:birds</id>
    <updated>2026-11-21T07:30:00.250-05:00</updated>
    <author><name>Di Wren</name></author>
    <author><name>Ed Finch</name></author>
    <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>A <em>wren</em> &amp; a finch.</p><p>Then&#160;rain.</p></div></content>
  </entry>
  <entry>
    <title type="text">Plain &lt;text&gt; note</title>
    <id>tag:blog.example,2026:note</id>
    <updated>2026-11-20T12:00:00Z</updated>
    <summary type="text">Line one
      line two &amp; more</summary>
  </entry>
</feed>
`;

/** RSS 1.0: items beside the channel, identified by rdf:about, dated with dc:date. */
export const RSS_1 = `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
  <channel rdf:about="https://old.example/">
    <title>Old News</title>
    <link>https://old.example/</link>
  </channel>
  <item rdf:about="https://old.example/1">
    <title>First</title>
    <link>https://old.example/1</link>
    <dc:date>2026-11-01T09:00:00+00:00</dc:date>
    <dc:creator>Fay</dc:creator>
    <dc:subject>archive</dc:subject>
  </item>
</rdf:RDF>
`;

export interface Item {
  guid: string;
  /** An RFC 822 date, or none. */
  date?: string;
  title?: string;
}

/** An RSS 2.0 document of `items`, newest first as feeds list them. */
export function rss(items: Item[], lastBuildDate = 'Mon, 23 Nov 2026 12:00:00 GMT'): string {
  const entries = items.map(
    (item) => `<item>
      <title>${item.title ?? `Item ${item.guid}`}</title>
      <guid isPermaLink="false">${item.guid}</guid>
      ${item.date ? `<pubDate>${item.date}</pubDate>` : ''}
      <description>Text of ${item.guid}</description>
    </item>`,
  );
  return `<?xml version="1.0"?><rss version="2.0"><channel><title>Generated</title>
    <lastBuildDate>${lastBuildDate}</lastBuildDate>${entries.join('\n')}</channel></rss>`;
}

export const HTML_PAGE = `<!DOCTYPE html>
<html lang="en"><head><title>Tide &amp; Time</title>
<link rel="stylesheet" href="/style.css">
<link rel="alternate" type="application/rss+xml" title="Posts" href="/feed.xml">
</head><body><p>Welcome<br></p></body></html>`;
