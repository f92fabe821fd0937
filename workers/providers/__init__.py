"""Provider adapters: engines backed by generative model services over the network.

Unlike workers.engines (pure, offline), these do network I/O. They take their configuration as
a plain ProviderConfig (workers.providers.config) and never import Django settings; the
selection function (workers.providers.select.engine_for) picks, per tool engine name, the local
engine or a provider-backed callable with the same (params, progress) signature.

Importing this package is light (no requests, no NumPy): settings parse the configuration
through workers.providers.config at start-up.
"""
