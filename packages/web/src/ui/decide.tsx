/** The two buttons that decide what waits for approval. */
export function ApproveReject(props: { busy: boolean; onDecide: (decision: 'approve' | 'reject') => void }) {
  return (
    <>
      <button type="button" disabled={props.busy} onClick={() => props.onDecide('approve')}>
        Approve
      </button>
      <button type="button" class="danger" disabled={props.busy} onClick={() => props.onDecide('reject')}>
        Reject
      </button>
    </>
  );
}
