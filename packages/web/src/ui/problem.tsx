import { ApiError } from '../api/client';

/** An error where it happened: what the server said (its detail and field errors) and its code. */
export function ProblemNote({ error }: { error: Error | undefined | null }) {
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
              <code>{item.path}</code>: {item.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
