"""Editorial and Tonelab: reference analysis as text, staging, relighting and film-look grading.

Engines (register in workers/engines/registry.py):
- ``editorial.analyze.run``: a reference photo written up as the five parameter texts.
  ``editorial_run`` and ``tonelab_run`` are its entries for the two tools' fields.
- ``editorial.generate.run``: a catalogue photo staged, relit and graded; three variants.
- ``editorial.tonelab.run``: a base photo graded towards a reference and a camera look.
"""
