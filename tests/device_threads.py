"""One Python thread per device, as MXNet's data-parallel scripts run SyncBatchNorm and
multi-context training: the cases of sync_batchnorm_cases.py and multidevice_cases.py."""
import threading


def run(work, n):
    """Runs work(i) for i in range(n) on n threads at once and joins them; the first
    exception a thread raised is re-raised here."""
    errors = []

    def guarded(i):
        try:
            work(i)
        except Exception as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    threads = [threading.Thread(target=guarded, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
