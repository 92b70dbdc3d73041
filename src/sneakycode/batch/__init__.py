"""Many tasks at once (`sneakycode batch`): task spec, a copy per task, the per-task run, results, executors."""
