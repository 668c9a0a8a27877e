-- Receipts record the operation that was done, the same whichever surface asked (issue 23): the web's
-- rename and an agent's updateProject are both project.update. The column keeps its first name (tool) so
-- an instance of the previous release still reads the rows during a rolling deploy (it refuses to undo a
-- project.update receipt until it is replaced; nothing is lost).
UPDATE receipts SET tool = CASE tool
  WHEN 'saveToProject' THEN 'project.save'
  WHEN 'updateProject' THEN 'project.update'
  WHEN 'detachLot' THEN 'project.detach'
  WHEN 'setProjectMapListing' THEN 'project.map_listing'
  WHEN 'runFeasibilityAnalysis' THEN 'analysis.run'
  ELSE tool
END;
