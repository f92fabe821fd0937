# Atelier: two commands do all the set-up on a fresh machine.
#   make run    install what is missing and start the whole product (Ctrl-C stops it)
#   make test   run every suite
.PHONY: run test faults bench fidelity lint install examples clean

# Each runs its script in deploy/local/. faults: fault and load scenarios (real processes
# killed and restarted, outages, 200 partners, a 10,000-job backlog); slow, so not part of
# `make test`. fidelity: image quality of the batch engines on our fixtures, figures against the
# bars, contact sheets.
run test faults bench fidelity lint:
	@deploy/local/$@.sh

install:
	@deploy/local/bootstrap.sh

# Re-render the tool pages' Examples galleries with our engines (look at them before committing).
examples:
	@deploy/local/bootstrap.sh && .venv/bin/python deploy/local/examples.py

clean:
	rm -rf var webapp/dist
