import { ApiError } from '../api/client';

/**
 * An error where it happened: what the server said (its detail and field errors) and its code.
 * `where` names the place in text the person wrote that a field error's path points at.
 */
export function ProblemNote({
  error,
  where,
}: {
  error: Error | undefined | null;
  where?: (path: string) => string | undefined;
}) {
  if (!error) return null;
  const problem = error instanceof ApiError ? error.problem : null;
  return (
    <div class="problem" role="alert">
      <p>
        <strong>{problem?.title ?? 'Something went wrong'}</strong>
        {problem ? ` (${problem.code})` : ''}: {error.message}
      </p>
      {problem?.errors?.length ? (
        <ul>
          {problem.errors.map((item) => (
            <li key={item.path}>
              {where?.(item.path) ? `${where(item.path)}: ` : ''}
              <code>{item.path}</code>: {item.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
