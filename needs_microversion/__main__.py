from needs_microversion.cli import main

raise SystemExit(main())
