"""What a session leaves on disk: its folder, the transcript, the undo journal, and undo itself."""
