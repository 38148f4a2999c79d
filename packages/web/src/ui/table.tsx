import type { ComponentChildren } from 'preact';

/**
 * A table that scrolls sideways on a narrow screen: a column header for each of `head`, an optional
 * caption, and the rows (`<tr>`) as children.
 */
export function Table(props: {
  head: ComponentChildren[];
  caption?: ComponentChildren;
  captionClass?: string;
  children: ComponentChildren;
}) {
  return (
    <div class="table-wrap">
      <table>
        {props.caption === undefined ? null : <caption class={props.captionClass}>{props.caption}</caption>}
        <thead>
          <tr>
            {props.head.map((cell, index) => (
              <th key={index} scope="col">
                {cell}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}
