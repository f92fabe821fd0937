"""Provider adapters: engines backed by generative model services over the network.

Unlike workers.engines (pure, offline), these do network I/O. They take their configuration as
a plain ProviderConfig (workers.providers.config) and never import Django settings; the
selection function (workers.providers.select.engine_for) picks, per tool engine name, the local
engine or a provider-backed callable with the same (params, progress) signature, which says
who made its outputs (``made_by``, ``tier``) and what the provider reported they cost
(``usage``).

- catalog: the provider kinds, the tools each can run, their documented API roots;
- calls (with transport): what every adapter shares: deadline, 429 Retry-After, errors in the
  provider's words, output fetching, queue polling;
- fashn, fal, vertex, replicate_api, openai_images: one adapter per kind (docs/providers/);
- tryon_api: the FASHN adapter's old import path.

Importing this package, config or catalog is light (no requests, no NumPy): settings parse the
configuration through workers.providers.config at start-up.
"""
