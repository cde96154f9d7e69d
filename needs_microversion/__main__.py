from needs_microversion.launch import run

run()
