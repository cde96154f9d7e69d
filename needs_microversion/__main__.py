from needs_microversion.launch import main

raise SystemExit(main())
